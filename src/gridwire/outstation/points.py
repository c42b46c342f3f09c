"""The point types an outstation serves and how each travels in DNP3.

A point type names its static group (what a class 0 or range read returns), its event group
and the variations of each this outstation can report. The names are the ones the master's
records use (``bi``, ``dbi``, ``bo``, ``counter``, ``frozen``, ``ai``, ``ao``).

Defaults (decision "outstation variations" in docs/DESIGN.md): static values with their
flags (g1v2, g3v2, g10v2, g20v1, g21v1, g30v1, g40v1) and events with their time (g2v2,
g4v2, g11v2, g22v5, g23v5, g32v3, g42v3), since a master needs an event's time to order it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

PointType = Literal["bi", "dbi", "bo", "counter", "frozen", "ai", "ao"]
POINT_TYPES: Final[tuple[PointType, ...]] = ("bi", "dbi", "bo", "counter", "frozen", "ai", "ao")

Value = bool | int | float

# The ONLINE quality flag, shared by every point type (bit 0 of the flags octet).
ONLINE: Final = 0x01
RESTART: Final = 0x02
# Bit 7 of a binary input/output flags octet and bits 6-7 of a double-bit one carry the state.
OVER_RANGE: Final = 0x20


@dataclass(frozen=True, slots=True)
class TypeSpec:
    """How one point type travels: groups and the variations this outstation can send."""

    type: PointType
    static_group: int
    event_group: int
    static_variations: tuple[int, ...]
    event_variations: tuple[int, ...]
    default_static: int
    default_event: int
    analog: bool  # value is a number with a deadband (counters, analogs)
    binary: bool  # value is a state (bi, bo) or a double-bit state (dbi)


TYPES: Final[dict[PointType, TypeSpec]] = {
    "bi": TypeSpec("bi", 1, 2, (1, 2), (1, 2, 3), 2, 2, False, True),
    "dbi": TypeSpec("dbi", 3, 4, (1, 2), (1, 2, 3), 2, 2, False, True),
    "bo": TypeSpec("bo", 10, 11, (1, 2), (1, 2), 2, 2, False, True),
    "counter": TypeSpec("counter", 20, 22, (1, 2, 5, 6), (1, 2, 5, 6), 1, 5, True, False),
    "frozen": TypeSpec("frozen", 21, 23, (1, 2, 5, 6, 9, 10), (1, 2, 5, 6), 1, 5, True, False),
    "ai": TypeSpec("ai", 30, 32, (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6, 7, 8), 1, 3, True, False),
    "ao": TypeSpec("ao", 40, 42, (1, 2, 3, 4), (1, 2, 3, 4, 5, 6, 7, 8), 1, 3, True, False),
}

BY_STATIC_GROUP: Final[dict[int, TypeSpec]] = {s.static_group: s for s in TYPES.values()}
BY_EVENT_GROUP: Final[dict[int, TypeSpec]] = {s.event_group: s for s in TYPES.values()}


def initial_value(point_type: PointType) -> Value:
    """The value a point starts with when its definition gives none."""
    if point_type in ("bi", "bo"):
        return False
    if point_type == "dbi":
        return 1  # DETERMINED_OFF (0 intermediate, 2 determined on, 3 indeterminate)
    if point_type in ("counter", "frozen"):
        return 0
    return 0.0


@dataclass(slots=True)
class Point:
    """One point of the database: its present value and how it reports.

    ``flags`` is the raw quality octet without the state bits (those come from ``value``).
    ``event_class`` is 0 (no events) or 1-3. ``reported`` is the value the last event (or the
    start) carried, against which a deadband is measured.
    """

    type: PointType
    index: int
    value: Value
    flags: int
    time_ms: int | None
    event_class: int
    static_variation: int
    event_variation: int
    deadband: float
    reported: Value
    # The starting state, restored by a cold restart.
    initial: Value
    initial_flags: int
