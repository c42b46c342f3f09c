"""The schedule block, as the tables lay it out, found from the points' names.

Like the curve block, the schedule block is a window onto one stored schedule at a time: an
editor selector output (AO461 in AN2018-001's numbering, read back on AI570) picks the schedule;
outputs for its identity, priority, type, start date (days since 1970-01-01 UTC), start time
(milliseconds into that day), repeat interval, repeat interval units and number of points
follow, then a time offset and a value for each point (AO470/AO471 onwards), each mirrored by
an input. Unlike the curve block, the inputs do not line up with the outputs one for one:
AN2018-001 puts the validation status (AI578) and the status (AI579) of the selected schedule
between the repeat units (AI577) and the number of points (AI580), and the number of points
has no mirror of its own. So the block records every field's output and input by name, not by
offset. Beside it: an output that sets the selected schedule ready (BO42, its mirror BI108),
the index of the schedule running (AI569) and the number of schedules (AI24).

:func:`derive_schedule_block` reads the profile's conventions from the names (see its notes);
the JSON map states the block outright (``schedule_block``, docs/point-map.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from gridwire.der.errors import MapError
from gridwire.der.points import Address, Kind, Point
from gridwire.der.text import first_sentence, normalize

FIELDS: Final = (
    "identity",
    "priority",
    "type",
    "start_date",
    "start_time",
    "repeat_interval",
    "repeat_units",
    "count",
)
"""The schedule's fields, in the order they are written (the number of points last)."""
STATUS_INPUTS: Final = ("status", "validation")
"""Inputs of the selected schedule that no output sets."""


@dataclass(frozen=True, slots=True)
class ScheduleBlock:
    """Where the schedule block sits. ``outputs`` and ``inputs`` give an AO (AI) index per
    field of :data:`FIELDS` the tables have (inputs also ``status`` and ``validation``);
    ``point_output`` is the AO of point 1's time offset (its value follows, then point 2's
    time offset...), ``point_input`` the AI of its mirror; ``ready``/``ready_input`` the BO
    that sets the selected schedule ready and its mirror; ``running`` the AI of the index of
    the schedule running; ``number`` the AI of the number of schedules; ``schedules`` how
    many the outstation stores when the tables say (schedules are numbered from 1)."""

    selector: int
    readback: int | None
    outputs: tuple[tuple[str, int], ...]
    inputs: tuple[tuple[str, int], ...]
    point_output: int
    point_input: int | None
    max_points: int
    ready: int | None = None
    ready_input: int | None = None
    running: int | None = None
    number: int | None = None
    schedules: int | None = None

    def output(self, field: str) -> int | None:
        return dict(self.outputs).get(field)

    def input(self, field: str) -> int | None:
        return dict(self.inputs).get(field)

    def offset_output(self, point: int) -> int:
        """The AO of the time offset of ``point`` (from 1); its value is the next AO."""
        if not 1 <= point <= self.max_points:
            raise ValueError(f"a schedule point is numbered 1 to {self.max_points}, not {point}")
        return self.point_output + 2 * (point - 1)

    def offset_input(self, point: int) -> int | None:
        if self.point_input is None:
            return None
        return self.point_input + self.offset_output(point) - self.point_output

    def window_outputs(self) -> frozenset[int]:
        """Every output that edits the schedule shown (not the selector)."""
        points = range(self.point_output, self.point_output + 2 * self.max_points)
        return frozenset([i for _, i in self.outputs] + list(points))

    def mirror_input(self, output: int) -> int | None:
        """The input that reads back ``output`` of the window (or the selector)."""
        if output == self.selector:
            return self.readback
        for name, index in self.outputs:
            if index == output:
                return self.input(name)
        start, end = self.point_output, self.point_output + 2 * self.max_points
        if start <= output < end and self.point_input is not None:
            return self.point_input + output - start
        return None


# -- finding it from the names -------------------------------------------------------------

_SELECTOR = re.compile(r"schedule.*select(?!ed)|select(?!ed).*schedule")
_POINT = re.compile(r"point\W*\[?\s*(\d+)\s*\]?\W*(time\W*offset|value)")


def _words(point: Point) -> str:
    return re.sub(r"[^a-z0-9\[\]]+", "", normalize(first_sentence(point.label)))


def classify(point: Point) -> str | None:
    """The field a point of the schedule block holds, by its name (None: not one)."""
    text = _words(point)
    if "schedule" not in text:
        return None
    if "running" in text:
        return "running"
    if "numberof" in text and "schedules" in text:
        return "number"
    if _POINT.search(text):
        return None
    rules = (
        ("validation", "validation"),
        ("identity", "identity"),
        ("priority", "priority"),
        ("type", "type"),
        ("startdate", "start_date"),
        ("starttime", "start_time"),
        ("units", "repeat_units"),
        ("interval", "repeat_interval"),
        ("numberofpoints", "count"),
        ("status", "status"),
    )
    for word, field in rules:
        if word in text:
            return field
    return None


def _point_of(point: Point) -> tuple[int, bool] | None:
    """(point number, is the time offset) when ``point`` is a schedule point's output/input."""
    text = _words(point)
    found = _POINT.search(text) if "schedule" in text else None
    if found is None:
        return None
    return int(found.group(1)), found.group(2).startswith("time")


def _pairs(points: Sequence[Point], kind: Kind) -> tuple[int | None, int]:
    """The first point-1 time offset of ``kind`` and how many consecutive pairs follow it."""
    by_index = {p.index: p for p in points if p.kind is kind}
    starts = [p.index for p in by_index.values() if _point_of(p) == (1, True)]
    if not starts:
        return None, 0
    start, n = min(starts), 0
    while all(
        (q := by_index.get(start + 2 * n + axis)) is not None and _point_of(q) == (n + 1, axis == 0)
        for axis in (0, 1)
    ):
        n += 1
    return start, n


def derive_schedule_block(points: Sequence[Point]) -> ScheduleBlock | None:
    """The schedule block the points' names lay out, or None. The selector is the lowest AO
    whose first sentence speaks of a schedule and of selecting (not "selected"); its readback
    is its mirror, else the AI named the same way; the fields are the schedule AOs and AIs
    named after them (identity, priority, type, start date, start time, repeat interval,
    repeat units, number of points; inputs also status and validation status); the points
    are the run of "point N time offset"/"point N value" pairs from point 1; the ready
    output is the BO that speaks of a schedule being ready, with its mirror; the running
    index and the number of schedules are AIs named so."""
    aos = [p for p in points if p.kind is Kind.AO and "schedule" in _words(p)]
    selectors = sorted((p for p in aos if _SELECTOR.search(_words(p))), key=lambda p: p.index)
    output, count = _pairs(points, Kind.AO)
    if not selectors or output is None:
        return None
    selector = selectors[0]
    ais = [p for p in points if p.kind is Kind.AI and "schedule" in _words(p)]
    readback = _mirror(selector, Kind.AI) or next(
        (p.index for p in ais if _SELECTOR.search(_words(p))), None
    )
    outputs = _fields(aos, FIELDS)
    inputs = _fields(ais, FIELDS + STATUS_INPUTS)
    point_input, input_pairs = _pairs(points, Kind.AI)
    ready = next(
        (
            p
            for p in points
            if p.kind is Kind.BO and "schedule" in (w := _words(p)) and "ready" in w
        ),
        None,
    )
    singles: dict[str, int] = {}
    for point in reversed(ais):
        field = classify(point)
        if field in ("running", "number"):
            singles[field] = point.index
    return ScheduleBlock(
        selector=selector.index,
        readback=readback,
        outputs=outputs,
        inputs=inputs,
        point_output=output,
        point_input=point_input if input_pairs >= count else None,
        max_points=count,
        ready=None if ready is None else ready.index,
        ready_input=None if ready is None else _mirror(ready, Kind.BI),
        running=singles.get("running"),
        number=singles.get("number"),
    )


def _mirror(point: Point, kind: Kind) -> int | None:
    other = point.associated
    return other.index if other is not None and other.kind is kind else None


def _fields(points: Sequence[Point], names: Sequence[str]) -> tuple[tuple[str, int], ...]:
    found: dict[str, int] = {}
    for point in sorted(points, key=lambda p: p.index):
        field = classify(point)
        if field is not None and field in names and field not in found:
            found[field] = point.index
    return tuple((name, found[name]) for name in names if name in found)


def check_schedule_block(points: Mapping[Address, Point], block: ScheduleBlock) -> None:
    """Every point the schedule block names exists."""
    if block.max_points < 1:
        raise MapError("the schedule block holds at least one schedule point")
    if block.schedules is not None and block.schedules < 1:
        raise MapError("the schedule block stores at least one schedule")
    unknown = [n for n, _ in block.outputs if n not in FIELDS]
    unknown += [n for n, _ in block.inputs if n not in FIELDS + STATUS_INPUTS]
    if unknown:
        raise MapError(f"the schedule block has no field {unknown[0]!r}")
    wanted = [Address(Kind.AO, block.selector)]
    wanted += [Address(Kind.AO, i) for _, i in block.outputs]
    wanted += [Address(Kind.AI, i) for _, i in block.inputs]
    wanted += [
        Address(Kind.AO, block.offset_output(n) + a) for n in (1, block.max_points) for a in (0, 1)
    ]
    if block.point_input is not None:
        last = block.point_input + 2 * block.max_points - 1
        wanted += [Address(Kind.AI, block.point_input), Address(Kind.AI, last)]
    for kind, index in (
        (Kind.AI, block.readback),
        (Kind.BO, block.ready),
        (Kind.BI, block.ready_input),
        (Kind.AI, block.running),
        (Kind.AI, block.number),
    ):
        if index is not None:
            wanted.append(Address(kind, index))
    for address in wanted:
        if address not in points:
            raise MapError(f"the schedule block names {address}, which is not in the map")
