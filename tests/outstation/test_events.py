"""Events: deadbands, buffers per class, retired only by a matching confirm, overflow."""

from __future__ import annotations

from gridwire.dnp3.app.iin import IIN
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.database import Database
from tests.outstation.conftest import EPOCH_MS, make_wire
from tests.outstation.wire import Wire, hexes

# EPOCH + 2000 ms = 1_700_000_002_000 = 0x018BCFE56FD0, as six octets little-endian.
TIME_AT_2S = "D0 6F E5 CF 8B 01"


def test_event_read_confirm_and_retire_literal(wire: Wire) -> None:
    wire.session.database.update("bi", 1, True, now=2.0)
    # A class 1 event waits: IIN1.1 (0x02) joins 0x90.
    assert hexes(wire.send("C0 01 3C 01 06"))[0].startswith("C0 81 92 00")
    # READ class 1 (g60v2), sequence 1. The response carries the event, so CON: E1.
    # g2v2 (with absolute time), qualifier 0x17, count 1, index 1, flags ONLINE|on 0x81.
    assert hexes(wire.send("C1 01 3C 02 06", now=3.0)) == [
        f"E1 81 90 00 02 02 17 01 01 81 {TIME_AT_2S}"
    ]
    # CONFIRM with sequence 1 (C1 00) retires it; a confirm takes no response.
    assert wire.send("C1 00", now=3.5) == []
    assert hexes(wire.send("C2 01 3C 02 06", now=4.0)) == ["C2 81 90 00"]


def test_event_not_confirmed_is_reported_again(wire: Wire) -> None:
    wire.session.database.update("bi", 1, True, now=2.0)
    first = wire.ask("C1 01 3C 02 06", now=3.0)
    assert first.control.con and len(first.objects) == 1
    # A confirm with the wrong sequence number, or with UNS set, does not retire it.
    assert wire.send("C5 00") == []
    assert wire.send("D1 00") == []
    # The next request abandons the unconfirmed response: the event waits again.
    again = wire.ask("C2 01 3C 02 06", now=4.0)
    assert [(o.index, o.value, o.time_ms) for o in again.objects] == [(1, True, EPOCH_MS + 2000)]
    assert again.control.seq == 2


def test_events_by_class_and_iin_bits() -> None:
    db = Database(DeviceClock(EPOCH_MS, 0.0))
    db.add("bi", 0, False, event_class=1)
    db.add("ai", 0, 0, event_class=2)
    db.add("counter", 0, 0, event_class=3)
    db.add("ao", 0, 0, event_class=0)
    wire = make_wire(db)
    db.update("bi", 0, True, now=1.0)
    db.update("ai", 0, 5, now=1.0)
    db.update("counter", 0, 9, now=1.0)
    db.update("ao", 0, 3, now=1.0)  # class 0: no event
    answer = wire.ask("C0 01 3C 01 06")
    assert answer.iin & (IIN.CLASS_1_EVENTS | IIN.CLASS_2_EVENTS | IIN.CLASS_3_EVENTS) == (
        IIN.CLASS_1_EVENTS | IIN.CLASS_2_EVENTS | IIN.CLASS_3_EVENTS
    )
    # Read class 2 only (g60v3): the analog event in g32v3 (32-bit with time).
    answer = wire.ask("C1 01 3C 03 06")
    assert [(o.group, o.variation, o.index, o.value) for o in answer.objects] == [(32, 3, 0, 5)]
    assert wire.send("C1 00") == []
    answer = wire.ask("C2 01 3C 01 06")
    assert answer.iin & IIN.CLASS_2_EVENTS == 0
    assert answer.iin & IIN.CLASS_1_EVENTS and answer.iin & IIN.CLASS_3_EVENTS
    # Events of one type (g22v0: counter events) whatever their class, with a variation asked
    # for (g22v1, 32-bit with flag, no time).
    answer = wire.ask("C3 01 16 01 06")
    assert [(o.group, o.variation, o.index, o.value, o.time_ms) for o in answer.objects] == [
        (22, 1, 0, 9, None)
    ]


def test_count_limited_class_read() -> None:
    db = Database(DeviceClock(EPOCH_MS, 0.0))
    db.add("ai", 0, 0)
    wire = make_wire(db)
    for value in range(1, 6):
        db.update("ai", 0, value, now=float(value))
    # g60v2 with qualifier 0x07 count 2: the two oldest events, and class 1 still waits.
    answer = wire.ask("C0 01 3C 02 07 02")
    assert [o.value for o in answer.objects] == [1, 2]
    assert answer.iin & IIN.CLASS_1_EVENTS
    wire.send("C0 00")
    answer = wire.ask("C1 01 3C 02 06")
    assert [o.value for o in answer.objects] == [3, 4, 5]


def test_deadband() -> None:
    db = Database(DeviceClock(EPOCH_MS, 0.0))
    db.add("ai", 0, 100, deadband=10)
    assert db.update("ai", 0, 110, now=1.0) is None  # |110 - 100| = 10 is not beyond 10
    assert db.update("ai", 0, 111, now=2.0) is not None  # 11 is
    assert db.update("ai", 0, 105, now=3.0) is None  # measured from 111, the last reported
    assert db.update("ai", 0, 105, flags=0, now=4.0) is not None  # new flags always report
    db.add("bi", 0, False)
    assert db.update("bi", 0, False, now=5.0) is None
    assert db.update("bi", 0, True, now=6.0) is not None


def test_overflow_sets_the_bit_until_confirms_leave_room() -> None:
    db = Database(DeviceClock(EPOCH_MS, 0.0), event_capacity=3)
    db.add("ai", 0, 0)
    wire = make_wire(db)
    for value in range(1, 6):  # five events into room for three: the oldest two go
        db.update("ai", 0, value, now=float(value))
    answer = wire.ask("C0 01 3C 02 06", now=6.0)
    assert answer.iin & IIN.EVENT_BUFFER_OVERFLOW
    assert [o.value for o in answer.objects] == [3, 4, 5]
    # Not confirmed yet: still overflowed.
    assert wire.ask("C1 01 3C 01 06", now=7.0).iin & IIN.EVENT_BUFFER_OVERFLOW
    answer = wire.ask("C2 01 3C 02 06", now=8.0)
    assert wire.send("C2 00", now=8.5) == []
    assert not wire.ask("C3 01 3C 01 06", now=9.0).iin & IIN.EVENT_BUFFER_OVERFLOW


def test_overflow_never_discards_events_in_flight() -> None:
    db = Database(DeviceClock(EPOCH_MS, 0.0), event_capacity=2)
    db.add("ai", 0, 0)
    wire = make_wire(db)
    db.update("ai", 0, 1, now=1.0)
    db.update("ai", 0, 2, now=2.0)
    held = wire.ask("C0 01 3C 02 06", now=3.0)  # both now held by the unconfirmed fragment
    assert [o.value for o in held.objects] == [1, 2]
    assert db.update("ai", 0, 3, now=4.0) is None  # no room: the new event is the one lost
    wire.send("C0 00")
    assert wire.ask("C1 01 3C 02 06").objects == []


def test_relative_time_events_come_after_a_common_time_of_occurrence() -> None:
    db = Database(DeviceClock(EPOCH_MS, 0.0))
    db.add("bi", 0, False, event_variation=3)
    wire = make_wire(db)
    db.update("bi", 0, True, now=1.0)
    db.update("bi", 0, False, now=1.25)
    answer = wire.ask("C0 01 3C 02 06", now=2.0)
    # The clock was never set by a master: g51v2 (unsynchronized CTO), then g2v3.
    assert answer.headers[0].group == 51 and answer.headers[0].variation == 2
    events = [(o.group, o.variation, o.value, o.time_ms) for o in answer.objects[1:]]
    assert events == [(2, 3, True, EPOCH_MS + 1000), (2, 3, False, EPOCH_MS + 1250)]
