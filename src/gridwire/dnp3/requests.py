"""Builders of everything a master sends: each returns the application fragment's octets.

Every request is a single fragment (FIR|FIN), asks no confirmation (CON 0) and carries the
sequence number given (0-15). Object headers are built with :mod:`gridwire.dnp3.app.headers`
(for reads) and :func:`gridwire.dnp3.objects.encode.encode_objects` (for objects with data),
so their qualifiers are the smallest that fit unless one is forced.

Examples (octets as IEEE 1815-2012 lays them out)::

    integrity_poll(0)          C0 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06
    clear_restart(1)           C1 02 50 01 00 07 07 00
    command(2, "DIRECT_OPERATE", crobs=[(0, crob("LATCH_ON"))], qualifier=0x28)
                               C2 05 0C 01 28 01 00 00 00 03 01 64 00 00 00 64 00 00 00 00
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gridwire.dnp3.app.control import AppControl
from gridwire.dnp3.app.fragments import encode_request
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.headers import all_header, indexed_header, range_header
from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.records import AnalogCommand, Crob, TimeAndInterval

F = FunctionCode
CLASS_GROUP = 60
COMMAND_FUNCTIONS = frozenset({F.SELECT, F.OPERATE, F.DIRECT_OPERATE, F.DIRECT_OPERATE_NR})
INTEGRITY_CLASSES = (1, 2, 3, 0)
_I32 = range(-(2**31), 2**31)


def request(seq: int, function: FunctionCode | int | str, body: bytes = b"") -> bytes:
    """Any request function by code or name, with a body of raw object headers and data."""
    return encode_request(AppControl.request(seq), function, body)


def class_header(class_: int) -> bytes:
    """g60 variation 1-4 (class 0-3), all objects."""
    if class_ not in (0, 1, 2, 3):
        raise EncodeError(f"event class {class_} is not 0, 1, 2 or 3")
    return all_header(CLASS_GROUP, class_ + 1)


def _class_headers(classes: Iterable[int]) -> bytes:
    """Class headers, event classes ascending and class 0 last (the integrity order)."""
    chosen = set(classes)
    if not chosen:
        raise EncodeError("no class to name")
    order = sorted(chosen - {0}) + ([0] if 0 in chosen else [])
    return b"".join(class_header(c) for c in order)


# Reads ----------------------------------------------------------------------------------


def read(seq: int, *headers: bytes) -> bytes:
    """A READ of the given object headers (built with :mod:`gridwire.dnp3.app.headers`)."""
    if not headers:
        raise EncodeError("a read needs at least one object header")
    return request(seq, F.READ, b"".join(headers))


def read_classes(seq: int, classes: Iterable[int]) -> bytes:
    """A READ of classes 0-3 in any combination (event classes first, then class 0)."""
    return request(seq, F.READ, _class_headers(classes))


def integrity_poll(seq: int) -> bytes:
    """Classes 1, 2, 3 then 0."""
    return read_classes(seq, INTEGRITY_CLASSES)


def read_range(seq: int, group: int, variation: int, start: int, stop: int) -> bytes:
    """A READ of points start..stop of a group/variation (variation 0: any)."""
    return request(seq, F.READ, range_header(group, variation, start, stop))


def read_all(seq: int, group: int, variation: int = 0) -> bytes:
    """A READ of every point of a group/variation (qualifier 0x06)."""
    return request(seq, F.READ, all_header(group, variation))


def read_points(seq: int, group: int, variation: int, indices: Sequence[int]) -> bytes:
    """A READ of particular points by index prefix (0x17/0x28/0x39)."""
    return request(seq, F.READ, indexed_header(group, variation, indices))


# Writes ---------------------------------------------------------------------------------


def write_time(seq: int, time_ms: int) -> bytes:
    """WRITE of the absolute time (g50v1, count 1) in ms since the epoch."""
    return request(seq, F.WRITE, encode_objects(50, 1, [Item(None, time_ms)]))


def write_last_recorded_time(seq: int, time_ms: int) -> bytes:
    """WRITE of the time at last recorded time (g50v3, count 1), the LAN procedure."""
    return request(seq, F.WRITE, encode_objects(50, 3, [Item(None, time_ms)]))


def clear_restart(seq: int) -> bytes:
    """WRITE of IIN1.7 (g80v1, start-stop 7..7) to 0: clears DEVICE_RESTART."""
    return request(seq, F.WRITE, encode_objects(80, 1, [Item(7, False)]))


# Controls -------------------------------------------------------------------------------


def analog_variation(value: int | float) -> int:
    """g41 variation for a value: a whole number as a 32-bit integer (v1), anything else as
    a single-precision float (v3)."""
    if isinstance(value, int) and not isinstance(value, bool) and value in _I32:
        return 1
    return 3


def command(
    seq: int,
    function: FunctionCode | str,
    *,
    crobs: Sequence[tuple[int, Crob]] = (),
    analogs: Sequence[tuple[int, int | float | AnalogCommand]] = (),
    variation: int | None = None,
    qualifier: int | None = None,
) -> bytes:
    """SELECT, OPERATE, DIRECT_OPERATE or DIRECT_OPERATE_NR (no response) of CROBs (g12v1) and analog
    outputs (g41v1-4), each index-prefixed (0x17/0x28 by the largest index, or
    ``qualifier``). Analog outputs of different variations go in separate headers, in order
    of first appearance; ``variation`` forces one variation for all."""
    code = F.from_name(function) if isinstance(function, str) else F(function)
    if code not in COMMAND_FUNCTIONS:
        raise EncodeError(f"{code.name} is not a command function")
    if not crobs and not analogs:
        raise EncodeError("a command needs at least one control")
    body = b""
    if crobs:
        items = [Item(index, value) for index, value in crobs]
        body += encode_objects(12, 1, items, qualifier)
    by_variation: dict[int, list[Item]] = {}
    for index, value in analogs:
        amount = value.value if isinstance(value, AnalogCommand) else value
        chosen = variation or analog_variation(amount)
        wrapped = value if isinstance(value, AnalogCommand) else AnalogCommand(value, "SUCCESS")
        by_variation.setdefault(chosen, []).append(Item(index, wrapped))
    for g41_variation, items in by_variation.items():
        if g41_variation not in (1, 2, 3, 4):
            raise EncodeError(f"g41 has variations 1-4, not {g41_variation}")
        body += encode_objects(41, g41_variation, items, qualifier)
    return request(seq, code, body)


# Freezes --------------------------------------------------------------------------------


def freeze(
    seq: int,
    *,
    clear: bool = False,
    ack: bool = True,
    ranges: Sequence[tuple[int, int]] | None = None,
    group: int = 20,
) -> bytes:
    """IMMED_FREEZE, FREEZE_CLEAR and their _NR forms, of every counter (g20v0, 0x06) or
    of ranges start..stop."""
    code = {
        (False, True): F.IMMED_FREEZE,
        (False, False): F.IMMED_FREEZE_NR,
        (True, True): F.FREEZE_CLEAR,
        (True, False): F.FREEZE_CLEAR_NR,
    }[(clear, ack)]
    if ranges is None:
        body = all_header(group, 0)
    elif not ranges:
        raise EncodeError("a freeze of ranges needs at least one range")
    else:
        body = b"".join(range_header(group, 0, start, stop) for start, stop in ranges)
    return request(seq, code, body)


def freeze_at_time(
    seq: int, time_ms: int, interval_ms: int, *, ack: bool = True, group: int = 20
) -> bytes:
    """FREEZE_AT_TIME(_NR): g50v2 (time and interval) then every counter of ``group``."""
    when = encode_objects(
        50, 2, [Item(None, TimeAndInterval(time_ms, interval_ms, "MILLISECONDS"))]
    )
    code = F.FREEZE_AT_TIME if ack else F.FREEZE_AT_TIME_NR
    return request(seq, code, when + all_header(group, 0))


# Device management ----------------------------------------------------------------------


def cold_restart(seq: int) -> bytes:
    return request(seq, F.COLD_RESTART)


def warm_restart(seq: int) -> bytes:
    return request(seq, F.WARM_RESTART)


def delay_measure(seq: int) -> bytes:
    return request(seq, F.DELAY_MEASURE)


def record_current_time(seq: int) -> bytes:
    return request(seq, F.RECORD_CURRENT_TIME)


def _event_classes(classes: Iterable[int]) -> bytes:
    chosen = set(classes)
    if not chosen or not chosen <= {1, 2, 3}:
        raise EncodeError(f"unsolicited reporting is by event class 1-3, not {sorted(chosen)}")
    return _class_headers(chosen)


def enable_unsolicited(seq: int, classes: Iterable[int] = (1, 2, 3)) -> bytes:
    """ENABLE_UNSOLICITED for event classes (g60v2-4)."""
    return request(seq, F.ENABLE_UNSOLICITED, _event_classes(classes))


def disable_unsolicited(seq: int, classes: Iterable[int] = (1, 2, 3)) -> bytes:
    """DISABLE_UNSOLICITED for event classes (g60v2-4)."""
    return request(seq, F.DISABLE_UNSOLICITED, _event_classes(classes))


def assign_class(seq: int, assignments: Sequence[tuple[int, Sequence[bytes]]]) -> bytes:
    """ASSIGN_CLASS: for each (class, point headers), the class header (g60v1-4) then the
    headers of the points it takes (e.g. ``all_header(1)`` or ``range_header(30, 0, 0, 9)``)."""
    if not assignments:
        raise EncodeError("an assign class request needs at least one assignment")
    body = b""
    for class_, headers in assignments:
        if not headers:
            raise EncodeError(f"class {class_} is assigned no points")
        body += class_header(class_) + b"".join(headers)
    return request(seq, F.ASSIGN_CLASS, body)


def confirm(seq: int, *, unsolicited: bool = False) -> bytes:
    """CONFIRM of a solicited response, or of an unsolicited one (UNS bit set)."""
    control = AppControl(True, True, False, unsolicited, seq)
    return encode_request(control, F.CONFIRM)
