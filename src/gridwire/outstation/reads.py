"""What a READ asks for, as the parts a response is written from, or why it is refused.

Read headers this outstation answers (IEEE 1815-2012 subset level 2, and more):

- class data: g60v1 (class 0: every static point, in group order 1, 3, 10, 20, 21, 30, 40),
  g60v2-v4 (events of class 1-3; qualifier 0x06, or 0x07/0x08 to take at most that many);
- static groups 1, 3, 10, 20, 21, 30, 40 in variation 0 (each point's own) or any variation
  of the group: every point (0x06), a range (0x00/0x01/0x02), or points by index
  (0x17/0x28/0x39);
- event groups 2, 4, 11, 22, 23, 32, 42 in variation 0 or any of the group's event
  variations, all (0x06) or at most a count (0x07/0x08);
- g50v1, the time (0x07 count 1, or 0x06).

A read with any header it cannot answer is refused whole, with no objects: OBJECT_UNKNOWN
for a group or variation it does not serve, PARAMETER_ERROR for a qualifier the header
cannot take or a range or index that names no point it has. A range that holds some points
returns those.
"""

from __future__ import annotations

from gridwire.dnp3.app.headers import ObjectHeader
from gridwire.dnp3.app.iin import IIN
from gridwire.outstation.database import Database
from gridwire.outstation.points import (
    BY_EVENT_GROUP,
    BY_STATIC_GROUP,
    POINT_TYPES,
    Point,
    PointType,
)
from gridwire.outstation.refusal import Refused
from gridwire.outstation.responses import EventPart, Part, StaticPart, TimePart

CLASS_OF_VARIATION = {2: 1, 3: 2, 4: 3}
_ALL = 0x06
_COUNTS = frozenset({0x07, 0x08, 0x09})
_RANGES = frozenset({0x00, 0x01, 0x02})
_INDEXED = frozenset({0x17, 0x28, 0x39})


def plan_read(database: Database, headers: list[ObjectHeader]) -> list[Part]:
    """The parts answering these read headers; :class:`Refused` for one it cannot answer."""
    parts: list[Part] = []
    for header in headers:
        parts.extend(_plan(database, header))
    return _merge_classes(parts)


def _plan(database: Database, header: ObjectHeader) -> list[Part]:
    group, variation, qualifier = header.group, header.variation, header.qualifier
    if group == 60:
        return _class(database, header)
    if group in BY_STATIC_GROUP:
        spec = BY_STATIC_GROUP[group]
        if variation and variation not in spec.static_variations:
            raise Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation} is not served")
        points = select_points(database, spec.type, header)
        if not points:
            return []
        return [StaticPart(spec.type, points, variation or None, prefixed=qualifier in _INDEXED)]
    if group in BY_EVENT_GROUP:
        spec = BY_EVENT_GROUP[group]
        if variation and variation not in spec.event_variations:
            raise Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation} is not served")
        limit = _limit(header)
        return [EventPart(frozenset({1, 2, 3}), spec.type, variation or None, limit)]
    if group == 50 and variation in (0, 1):
        if qualifier == _ALL or (qualifier in _COUNTS and header.count == 1):
            return [TimePart()]
        raise Refused(IIN.PARAMETER_ERROR, "the time is read with count 1 or all")
    raise Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation} is not served")


def _class(database: Database, header: ObjectHeader) -> list[Part]:
    if header.variation == 1:
        if header.qualifier != _ALL:
            raise Refused(IIN.PARAMETER_ERROR, "class 0 is read with qualifier 0x06")
        return [StaticPart(t, list(database.points(t))) for t in POINT_TYPES if database.count(t)]
    event_class = CLASS_OF_VARIATION.get(header.variation)
    if event_class is None:
        raise Refused(IIN.OBJECT_UNKNOWN, f"g60v{header.variation} is not a class")
    return [EventPart(frozenset({event_class}), limit=_limit(header))]


def _limit(header: ObjectHeader) -> int | None:
    if header.qualifier == _ALL:
        return None
    if header.qualifier in _COUNTS and header.count:
        return header.count
    raise Refused(
        IIN.PARAMETER_ERROR,
        f"events are read with qualifier 0x06 or a count, not 0x{header.qualifier:02X}",
    )


def select_points(database: Database, type: PointType, header: ObjectHeader) -> list[Point]:
    """The points of ``type`` a header names (all, a range, or indexes); Refused when a range
    or an index names no point, or the qualifier names no points."""
    qualifier = header.qualifier
    if qualifier == _ALL:
        return list(database.points(type))
    if qualifier in _RANGES and header.start is not None and header.stop is not None:
        points = list(database.points(type, header.start, header.stop))
        if not points:
            raise Refused(
                IIN.PARAMETER_ERROR,
                f"no {type} point in {header.start}..{header.stop}",
            )
        return points
    if qualifier in _INDEXED and header.indices:
        found = []
        for index in header.indices:
            point = database.point(type, index)
            if point is None:
                raise Refused(IIN.PARAMETER_ERROR, f"no {type} point {index}")
            found.append(point)
        return found
    raise Refused(
        IIN.PARAMETER_ERROR, f"g{header.group} cannot be read with qualifier 0x{qualifier:02X}"
    )


def _merge_classes(parts: list[Part]) -> list[Part]:
    """Adjacent class reads without a limit become one part, so their events go out oldest
    first whatever their class."""
    merged: list[Part] = []
    for part in parts:
        previous = merged[-1] if merged else None
        if (
            isinstance(part, EventPart)
            and isinstance(previous, EventPart)
            and part.type is None
            and previous.type is None
            and part.limit is None
            and previous.limit is None
            and part.variation is None
            and previous.variation is None
        ):
            merged[-1] = EventPart(previous.classes | part.classes)
            continue
        merged.append(part)
    return merged
