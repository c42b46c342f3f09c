"""der.write_curve: store a curve through the curve block, then read it back.

Every value (``number``, ``type``, ``x_units``, ``y_units`` and each point's X and Y) must be
a whole finite number (900.0 is taken as 900, 900.5 is refused naming the point), within the
range the tables give its output; a curve holds at most as many points as the block's window
(100 in the profile). All is checked before anything is sent.

Then the three steps of :mod:`gridwire.derops.edit_window`: the selector (``number``); the
fields (type, count = the number of points given, X units, Y units); every X and Y (none for
a curve of no points). ``stopped_at`` names the step that was not accepted (selector, fields
or points), null when none was refused; a step not answered (a timeout) stops the write too.
In mode direct_no_ack no step is acknowledged (``accepted`` null), so the step's effect is
read instead: after the selector and after the fields, one READ of the curve block's
readbacks, and the next step is sent only when they show what was written (else
``stopped_at`` names the step). Without that, fields and points could land on whichever
curve the window showed before. The curve is always read back (as der.curve reads it);
``matches`` says whether it is the curve written: number, type, count, units and every point
equal. Every request is listed in ``exchanges``, in the order sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gridwire.der.functions import CURVE_POINTS, CURVE_TYPE, CURVE_X_UNITS, CURVE_Y_UNITS
from gridwire.der.pointmap import PointMap
from gridwire.derops.curve import (
    CurveReading,
    curve_block_of,
    read_curve,
    read_heads,
    selector_control,
    window_control,
)
from gridwire.derops.edit_window import EditWindow, Step, write_window
from gridwire.derops.operated import Mode
from gridwire.derops.ranges import PointReader
from gridwire.errors import BadParameter
from gridwire.master import Master
from gridwire.master.controls import Control
from gridwire.master.records import Exchange, OperateResult


@dataclass(slots=True)
class WriteCurveResult:
    accepted: bool | None
    matches: bool
    stopped_at: Step | None
    steps: list[OperateResult]
    curve: CurveReading
    exchanges: list[Exchange]


@dataclass(frozen=True, slots=True)
class CurvePlan:
    """The three writes, checked, and the curve they store."""

    selector: list[Control]
    fields: list[Control]
    points: list[Control]

    @property
    def heads(self) -> tuple[object, ...]:
        """Number, type, count, X units and Y units, as written."""
        return tuple(c.value for c in self.selector + self.fields)

    @property
    def pairs(self) -> list[list[object]]:
        values: list[object] = [c.value for c in self.points]
        return [values[n : n + 2] for n in range(0, len(values), 2)]


def plan_curve(
    point_map: PointMap,
    number: object,
    type: object,
    x_units: object,
    y_units: object,
    points: Sequence[Sequence[object]],
) -> CurvePlan:
    """The writes of a curve, every value checked; RequestError naming the first that is not
    a whole number within its output's range (nothing is sent)."""
    block = curve_block_of(point_map)
    if isinstance(points, str) or not isinstance(points, Sequence):
        raise BadParameter("points is a list of [x, y] pairs")
    if len(points) > block.max_points:
        raise BadParameter(
            f"a curve holds at most {block.max_points} points; {len(points)} were given"
        )
    fields = [
        window_control(point_map, CURVE_TYPE, type, "type"),
        window_control(point_map, CURVE_POINTS, len(points), "count"),
        window_control(point_map, CURVE_X_UNITS, x_units, "x_units"),
        window_control(point_map, CURVE_Y_UNITS, y_units, "y_units"),
    ]
    pairs: list[Control] = []
    for n, pair in enumerate(points, start=1):
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise BadParameter(f"points[{n - 1}]: {pair!r} is not a pair [x, y]")
        offset = block.x_offset(n)
        pairs.append(window_control(point_map, offset, pair[0], f"points[{n - 1}] x"))
        pairs.append(window_control(point_map, offset + 1, pair[1], f"points[{n - 1}] y"))
    return CurvePlan([selector_control(point_map, number)], fields, pairs)


def _window(point_map: PointMap, plan: CurvePlan) -> EditWindow[CurveReading]:
    """The plan as the edit window writes it: the steps, the read back, what matches."""

    def matches(curve: CurveReading) -> bool:
        got = (curve.number, curve.type, curve.count, curve.x_units, curve.y_units)
        return got == plan.heads and curve.points == plan.pairs

    async def shows(
        reader: PointReader, outstation: str, step: Step
    ) -> tuple[bool, list[Exchange]]:
        shown, _, reads = await read_heads(reader, outstation, curve_block_of(point_map))
        written = 1 if step == "selector" else len(plan.heads)  # number; then the fields
        return shown[:written] == plan.heads[:written], reads

    steps: dict[Step, list[Control]] = {
        "selector": plan.selector,
        "fields": plan.fields,
        "points": plan.points,
    }
    what = f"curve {plan.heads[0]} ({len(plan.pairs)} points)"
    return EditWindow(steps, read_curve, matches, shows, what)


async def der_write_curve(
    master: Master,
    outstation: str,
    point_map: PointMap,
    number: object,
    type: object,
    x_units: object,
    y_units: object,
    points: Sequence[Sequence[object]],
    mode: Mode = "direct",
) -> WriteCurveResult:
    """der.write_curve (see the module's notes). Raises NotAllowed from the master when it
    may not command, ConnectionFailed when the outstation is not connected."""
    asked = {
        "number": number,
        "type": type,
        "x_units": x_units,
        "y_units": y_units,
        "points": points,
        "mode": mode,
    }
    w = await write_window(
        master,
        outstation,
        point_map,
        "der.write_curve",
        asked,
        lambda: _window(point_map, plan_curve(point_map, number, type, x_units, y_units, points)),
        mode,
    )
    return WriteCurveResult(w.accepted, w.matches, w.stopped_at, w.steps, w.reading, w.exchanges)
