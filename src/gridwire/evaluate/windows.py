"""The edit windows of a point map, as the restore journal sees them: the curve block and the
schedule block each show one stored item at a time, chosen by a selector output; their other
outputs edit whichever item is shown. :class:`Window` says, for either, which outputs edit the
item shown and which input reads each back, so that the journal keys what it records by the
item shown and puts it back by selecting that item first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gridwire.der.functions import CURVE_FIRST_X
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind, Point


@dataclass(frozen=True, slots=True)
class Window:
    """``name`` is ``curve`` or ``schedule``; ``selector`` an AO, ``readback`` its mirror
    AI; ``edits`` the (kind, index) of every output that edits the item shown; ``mirror``
    gives the input that reads one of them back."""

    name: str
    selector: int
    readback: int | None
    edits: frozenset[tuple[Kind, int]]
    mirror: Callable[[Kind, int], tuple[Kind, int] | None]

    def edited(self, kind: Kind, index: int) -> bool:
        return (kind, index) in self.edits


def windows(point_map: PointMap) -> list[Window]:
    """The windows the map has (curve block first)."""
    found = []
    curve = point_map.curve_block
    if curve is not None:
        last = curve.output(CURVE_FIRST_X + 2 * curve.max_points)
        edits = frozenset((Kind.AO, i) for i in range(curve.selector + 1, last))

        def curve_mirror(kind: Kind, index: int, start: int = curve.selector) -> tuple[Kind, int]:
            assert curve is not None
            return Kind.AI, curve.readback + index - start

        found.append(Window("curve", curve.selector, curve.readback, edits, curve_mirror))
    schedule = point_map.schedule_block
    if schedule is not None:
        edits = frozenset((Kind.AO, i) for i in schedule.window_outputs())
        if schedule.ready is not None:
            edits |= {(Kind.BO, schedule.ready)}

        def schedule_mirror(kind: Kind, index: int) -> tuple[Kind, int] | None:
            assert schedule is not None
            if kind is Kind.BO:
                ready = schedule.ready_input
                return None if ready is None else (Kind.BI, ready)
            found_input = schedule.mirror_input(index)
            return None if found_input is None else (Kind.AI, found_input)

        found.append(
            Window("schedule", schedule.selector, schedule.readback, edits, schedule_mirror)
        )
    return found


def window_point(point_map: PointMap, window: Window, kind: Kind, index: int) -> Point | None:
    """The input that reads back output ``index`` of ``window`` (the selector's readback for
    the selector), else the output itself."""
    if kind is Kind.AO and index == window.selector:
        found = None if window.readback is None else point_map.get(Kind.AI, window.readback)
        return found or point_map.get(Kind.AO, index)
    mirror = window.mirror(kind, index)
    point = None if mirror is None else point_map.get(*mirror)
    return point or point_map.get(kind, index)


def window_of(point_map: PointMap, kind: Kind, index: int) -> Window | None:
    """The window whose selector (an AO) or edit output ``index`` is, or None."""
    for window in windows(point_map):
        if (kind is Kind.AO and index == window.selector) or window.edited(kind, index):
            return window
    return None
