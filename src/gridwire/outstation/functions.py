"""The request functions other than reads and controls, checked first and carried out only
when every header is acceptable (a request refused is not carried out in part).

- WRITE: the time (g50v1, count 1), the time at the last recorded time (g50v3, count 1; the
  LAN procedure, after RECORD_CURRENT_TIME), and IIN1.7 DEVICE_RESTART cleared (g80v1,
  index 7, value 0).
- IMMED_FREEZE / FREEZE_CLEAR (and their _NR forms): counters (g20v0, all or a range or
  indexes) copied to their frozen counters.
- ASSIGN_CLASS: g60v1-v4 (class 0-3), each followed by the static point headers it applies
  to (groups 1, 3, 10, 20, 21, 30, 40; variation 0; all, a range or indexes).
- ENABLE_UNSOLICITED / DISABLE_UNSOLICITED: g60v2-v4 (classes 1-3), qualifier 0x06.
"""

from __future__ import annotations

from collections.abc import Callable

from gridwire.dnp3.app.fragments import Request
from gridwire.dnp3.app.iin import IIN
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.database import Database
from gridwire.outstation.points import BY_STATIC_GROUP, PointType
from gridwire.outstation.reads import CLASS_OF_VARIATION, select_points
from gridwire.outstation.refusal import Refused, unreadable

Action = Callable[[], None]
_COUNTS = frozenset({0x07, 0x08, 0x09})
_RESTART_BIT = 7


def _readable(request: Request) -> None:
    if request.undecoded:
        bad = request.undecoded[0]
        raise unreadable(bad.group, bad.variation, bad.reason)


def plan_write(
    request: Request, database: Database, now: float, clear_restart: Action
) -> list[Action]:
    """What a WRITE does, one action per header; Refused for any header it cannot take."""
    _readable(request)
    clock = database.clock
    actions: list[Action] = []
    for header in request.headers:
        group, variation = header.group, header.variation
        if group == 50 and variation in (1, 3):
            if header.qualifier not in _COUNTS or header.count != 1 or len(header.objects) != 1:
                raise Refused(IIN.PARAMETER_ERROR, "the time is written as one object (count 1)")
            written = header.objects[0].time_ms
            if written is None:
                raise Refused(IIN.PARAMETER_ERROR, "a time object without a time")
            actions.append(_time_write(clock, variation, written, now))
        elif group == 80 and variation == 1:
            if header.start != _RESTART_BIT or header.stop != _RESTART_BIT:
                raise Refused(IIN.PARAMETER_ERROR, "only IIN1.7 (DEVICE_RESTART) may be written")
            if header.objects[0].value:
                raise Refused(IIN.PARAMETER_ERROR, "DEVICE_RESTART can only be cleared")
            actions.append(clear_restart)
        else:
            raise Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation} cannot be written")
    return actions


def _time_write(clock: DeviceClock, variation: int, written: int, now: float) -> Action:
    if variation == 1:
        return lambda: clock.set(written, now)
    recorded = clock.recorded_ms
    if recorded is None:
        raise Refused(IIN.PARAMETER_ERROR, "g50v3 written with no RECORD_CURRENT_TIME before it")

    def lan() -> None:
        # The master's time when it sent RECORD_CURRENT_TIME was ``written``; ours was
        # ``recorded``: the clock is off by the difference.
        clock.set(written + (clock.ms(now) - recorded), now)
        clock.recorded_ms = None

    return lan


def plan_freeze(request: Request, database: Database) -> list[int] | None:
    """The counter indexes a freeze names (None: all of them); Refused for anything else."""
    _readable(request)
    if not request.headers:
        raise Refused(IIN.PARAMETER_ERROR, "a freeze names the counters it freezes")
    indexes: list[int] = []
    for header in request.headers:
        if header.group != 20 or header.variation != 0:
            raise Refused(
                IIN.OBJECT_UNKNOWN, f"g{header.group}v{header.variation} cannot be frozen"
            )
        if header.qualifier == 0x06:
            return None
        indexes.extend(p.index for p in select_points(database, "counter", header))
    return indexes


def plan_assign_class(request: Request, database: Database) -> list[Action]:
    """One action per point header of an ASSIGN_CLASS; Refused for anything else."""
    _readable(request)
    actions: list[Action] = []
    event_class: int | None = None
    for header in request.headers:
        if header.group == 60:
            if header.variation not in (1, 2, 3, 4) or header.qualifier != 0x06:
                raise Refused(IIN.PARAMETER_ERROR, "a class is named by g60v1-v4, qualifier 0x06")
            event_class = header.variation - 1
            continue
        spec = BY_STATIC_GROUP.get(header.group)
        if spec is None or header.variation != 0:
            raise Refused(
                IIN.OBJECT_UNKNOWN,
                f"g{header.group}v{header.variation} cannot be assigned a class",
            )
        if event_class is None:
            raise Refused(IIN.PARAMETER_ERROR, "points named before the class they are given")
        indexes = [p.index for p in select_points(database, spec.type, header)]
        actions.append(_assign(database, spec.type, indexes, event_class))
    if event_class is None:
        raise Refused(IIN.PARAMETER_ERROR, "ASSIGN_CLASS names no class")
    return actions


def _assign(database: Database, type: PointType, indexes: list[int], event_class: int) -> Action:
    return lambda: database.assign_class(type, indexes, event_class)


def unsolicited_classes(request: Request) -> set[int]:
    """The classes an ENABLE/DISABLE_UNSOLICITED names; Refused for anything else."""
    _readable(request)
    classes: set[int] = set()
    for header in request.headers:
        if header.group != 60 or header.variation not in CLASS_OF_VARIATION:
            raise Refused(
                IIN.OBJECT_UNKNOWN,
                f"g{header.group}v{header.variation} is not an event class",
            )
        if header.qualifier != 0x06:
            raise Refused(IIN.PARAMETER_ERROR, "event classes are named with qualifier 0x06")
        classes.add(CLASS_OF_VARIATION[header.variation])
    if not classes:
        raise Refused(IIN.PARAMETER_ERROR, "no event class named")
    return classes
