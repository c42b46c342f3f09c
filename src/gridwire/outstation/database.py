"""The outstation's database: points by type, the events their changes make, freezes.

Whoever owns the values (the simulated DER, the generic database's control handler, a test)
calls :meth:`Database.update`; a change makes an event when the point has an event class and
the change counts: a new state or new flags for a binary point, a new value beyond the
deadband or new flags for a counter or an analog (``abs(new - last reported) > deadband``, so
a deadband of 0 reports every change). The event takes the device clock's time at ``now``.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator

from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.attributes import encode_attribute
from gridwire.dnp3.objects.records import Attribute
from gridwire.errors import ConfigError
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.events import Event, EventBuffer
from gridwire.outstation.points import (
    ONLINE,
    POINT_TYPES,
    TYPES,
    Point,
    PointType,
    Value,
    initial_value,
)


class Database:
    """Points of every type, the device clock and the event buffers."""

    def __init__(
        self,
        clock: DeviceClock | None = None,
        event_capacity: dict[int, int] | int = 100,
    ) -> None:
        self.clock = clock if clock is not None else DeviceClock()
        if isinstance(event_capacity, int):
            event_capacity = {1: event_capacity, 2: event_capacity, 3: event_capacity}
        self.events = EventBuffer(event_capacity)
        self._points: dict[PointType, dict[int, Point]] = {t: {} for t in POINT_TYPES}
        self._sorted: dict[PointType, list[int] | None] = {t: [] for t in POINT_TYPES}
        # device attributes (g0) by (attribute set, variation); none: g0 is not served
        self.attributes: dict[tuple[int, int], Attribute] = {}

    # -- building ------------------------------------------------------------------------
    def add(
        self,
        type: PointType,
        index: int,
        value: Value | None = None,
        *,
        flags: int = ONLINE,
        event_class: int = 1,
        static_variation: int | None = None,
        event_variation: int | None = None,
        deadband: float = 0.0,
    ) -> Point:
        """Add a point; ConfigError for a duplicate, a bad index, class or variation."""
        spec = TYPES[type]
        if not 0 <= index <= 0xFFFF:
            raise ConfigError(f"{type} index {index} is outside 0..65535")
        if index in self._points[type]:
            raise ConfigError(f"{type} {index} is defined twice")
        if event_class not in (0, 1, 2, 3):
            raise ConfigError(f"{type} {index}: event class {event_class} is not 0, 1, 2 or 3")
        static = spec.default_static if static_variation is None else static_variation
        event = spec.default_event if event_variation is None else event_variation
        if static not in spec.static_variations:
            raise ConfigError(
                f"{type} {index}: static variation {static} is not one of "
                f"g{spec.static_group} v{spec.static_variations}"
            )
        if event not in spec.event_variations:
            raise ConfigError(
                f"{type} {index}: event variation {event} is not one of "
                f"g{spec.event_group} v{spec.event_variations}"
            )
        if deadband < 0 or not math.isfinite(deadband):
            raise ConfigError(f"{type} {index}: deadband {deadband} must be a finite number >= 0")
        start = initial_value(type) if value is None else _coerce(type, value)
        point = Point(
            type=type,
            index=index,
            value=start,
            flags=flags & 0xFF,
            time_ms=None,
            event_class=event_class,
            static_variation=static,
            event_variation=event,
            deadband=float(deadband),
            reported=start,
            initial=start,
            initial_flags=flags & 0xFF,
        )
        self._points[type][index] = point
        self._sorted[type] = None
        return point

    def set_attribute(self, variation: int, attribute: Attribute, attribute_set: int = 0) -> None:
        """Serve a device attribute (g0); ConfigError for one that cannot be encoded or a
        variation the standard keeps for requests (0, 254, 255)."""
        if not 1 <= variation <= 253:
            raise ConfigError(f"device attribute variation {variation} is not 1..253")
        if not 0 <= attribute_set <= 0xFFFF:
            raise ConfigError(f"device attribute set {attribute_set} is outside 0..65535")
        try:
            encode_attribute(attribute)
        except EncodeError as exc:
            raise ConfigError(f"device attribute g0v{variation}: {exc}") from None
        self.attributes[(attribute_set, variation)] = attribute

    # -- reading -------------------------------------------------------------------------
    def point(self, type: PointType, index: int) -> Point | None:
        return self._points[type].get(index)

    def get(self, type: PointType, index: int) -> Point:
        """The point, or KeyError naming it."""
        try:
            return self._points[type][index]
        except KeyError:
            raise KeyError(f"no {type} point {index}") from None

    def indices(self, type: PointType) -> list[int]:
        """The type's indices in ascending order."""
        cached = self._sorted[type]
        if cached is None:
            cached = sorted(self._points[type])
            self._sorted[type] = cached
        return cached

    def points(self, type: PointType, start: int = 0, stop: int = 0xFFFFFFFF) -> Iterator[Point]:
        """The type's points with ``start <= index <= stop``, in ascending order (found by
        bisection: a range costs the points it holds, not every point of the type)."""
        table = self._points[type]
        indices = self.indices(type)
        for index in indices[bisect_left(indices, start) : bisect_right(indices, stop)]:
            yield table[index]

    def count(self, type: PointType) -> int:
        return len(self._points[type])

    # -- changing ------------------------------------------------------------------------
    def update(
        self,
        type: PointType,
        index: int,
        value: Value | None = None,
        *,
        flags: int | None = None,
        now: float,
        time_ms: int | None = None,
    ) -> Event | None:
        """Give a point a new value and/or flags at ``now``; returns the event it made, if any.

        ``time_ms`` overrides the device clock for the value's time (a value measured
        earlier); KeyError for a point that does not exist.
        """
        point = self.get(type, index)
        new_value = point.value if value is None else _coerce(type, value)
        new_flags = point.flags if flags is None else flags & 0xFF
        stamp = self.clock.ms(now) if time_ms is None else time_ms
        changed_flags = new_flags != point.flags
        point.value = new_value
        point.flags = new_flags
        point.time_ms = stamp
        if point.event_class == 0:
            point.reported = new_value
            return None
        if not changed_flags and not _significant(point, new_value):
            return None
        point.reported = new_value
        return self.events.add(
            type, index, new_value, new_flags, stamp, point.event_class, point.event_variation
        )

    def freeze(self, indices: Iterable[int] | None, *, clear: bool, now: float) -> int:
        """Copy counters to their frozen counters (same index), at ``now``; with ``clear``
        the counters then restart from 0. Returns how many counters were frozen."""
        stamp = self.clock.ms(now)
        wanted = self.indices("counter") if indices is None else list(indices)
        frozen = 0
        for index in wanted:
            counter = self._points["counter"].get(index)
            if counter is None:
                continue
            frozen += 1
            if index in self._points["frozen"]:
                self.update("frozen", index, counter.value, now=now, time_ms=stamp)
            if clear:
                counter.value = 0
                counter.reported = 0
                counter.time_ms = stamp
        return frozen

    def assign_class(self, type: PointType, indices: Iterable[int], event_class: int) -> None:
        for index in indices:
            point = self._points[type].get(index)
            if point is not None:
                point.event_class = event_class

    def reset(self) -> None:
        """A cold restart: every point back to its starting value and flags, no events."""
        for table in self._points.values():
            for point in table.values():
                point.value = point.initial
                point.reported = point.initial
                point.flags = point.initial_flags
                point.time_ms = None
        self.events.clear()


def _coerce(type: PointType, value: Value) -> Value:
    if type in ("bi", "bo"):
        return bool(value)
    if type == "dbi":
        state = int(value)
        if not 0 <= state <= 3:
            raise ValueError(f"a double-bit state is 0..3, not {value!r}")
        return state
    if type in ("counter", "frozen"):
        return int(value) & 0xFFFFFFFF
    if isinstance(value, bool):
        return int(value)
    return value


def _significant(point: Point, new: Value) -> bool:
    old = point.reported
    if not TYPES[point.type].analog:
        return new != old
    diff = abs(float(new) - float(old))
    if math.isnan(diff):
        return not (_isnan(new) and _isnan(old))
    return diff > point.deadband


def _isnan(value: Value) -> bool:
    return isinstance(value, float) and math.isnan(value)
