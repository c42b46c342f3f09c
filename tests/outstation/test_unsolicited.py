"""Unsolicited responses (allowed by configuration): the null one after a start, retried
identically until confirmed; then the events of the classes a master enabled.

An unsolicited response's control octet: FIR 0x80 | FIN 0x40 | CON 0x20 | UNS 0x10 |
sequence, function 0x82. Its confirm: FIR|FIN|UNS (0xD0) | sequence, function 00.

A binary input event in its default variation, g2v2 with absolute time: 02 02, qualifier 0x17
(1-octet count and index) 01, the index, flags (ONLINE 0x01 | state on 0x80 = 81), then
the 48-bit milliseconds since 1970 little-endian. The test clock reads EPOCH_MS
(1_700_000_000_000) at now = 0, so at now = 2.0 it is 1_700_000_002_000 = 0x018B_CFE5_6FD0:
D0 6F E5 CF 8B 01.
"""

from __future__ import annotations

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.app.iin import IIN
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.session import OutstationSession
from tests.outstation.conftest import make_wire, small_database
from tests.outstation.wire import Wire, hexes


def _unsolicited_wire(
    db: Database | None = None, classes: tuple[int, ...] = ()
) -> tuple[Wire, list[bytes]]:
    session = OutstationSession(
        GenericDevice(db if db is not None else small_database()),
        OutstationConfig(unsolicited=True, unsolicited_retry=5.0, unsolicited_classes=classes),
    )
    wire = Wire(session)
    return wire, wire.connect(0.0)


def test_null_unsolicited_retried_identically_until_confirmed() -> None:
    wire, first = _unsolicited_wire()
    # Null unsolicited response, sequence 0, DEVICE_RESTART | NEED_TIME, no objects.
    assert hexes(first) == ["F0 82 90 00"]
    assert wire.session.deadline == 5.0
    assert wire.poll(4.9) == []
    assert hexes(wire.poll(5.0)) == ["F0 82 90 00"]  # same octets, same sequence
    assert wire.send("D1 00", now=6.0) == []  # a confirm of another sequence: still waiting
    assert hexes(wire.poll(10.0)) == ["F0 82 90 00"]
    assert wire.send("D0 00", now=11.0) == []
    assert wire.session.deadline is None
    assert wire.poll(20.0) == []


def test_events_go_unsolicited_once_enabled() -> None:
    wire, _ = _unsolicited_wire()
    wire.send("D0 00", now=1.0)
    db = wire.session.database
    db.update("bi", 1, True, now=2.0)
    assert wire.poll(2.0) == []  # no class enabled yet
    # ENABLE_UNSOLICITED class 1 (g60v2): the response, then at once an unsolicited response
    # (sequence 1) with the event; CON and UNS set.
    answer = wire.send("C3 14 3C 02 06", now=3.0)
    assert len(answer) == 2
    assert hexes(answer[:1]) == ["C3 81 92 00"]  # the event waits as the response is built
    unsolicited = parse_response(answer[1])
    assert answer[1][:2] == bytes((0xF1, 0x82))
    assert [(o.group, o.index, o.value) for o in unsolicited.objects] == [(2, 1, True)]
    # Not confirmed within 5 s: sent again, identical.
    assert wire.poll(8.0) == [answer[1]]
    # A solicited read meanwhile does not report the event held by the unsolicited response.
    assert wire.ask("C4 01 3C 02 06", now=8.5).objects == []
    assert wire.send("D1 00", now=9.0) == []
    assert len(db.events) == 0
    assert not wire.ask("C5 01 3C 01 06", now=9.5).iin & IIN.CLASS_1_EVENTS


def test_disabled_classes_wait_for_a_read() -> None:
    wire, _ = _unsolicited_wire()
    wire.send("D0 00")
    wire.send("C0 14 3C 02 06 3C 03 06 3C 04 06")
    wire.send("C1 15 3C 02 06")  # class 1 disabled again
    db = wire.session.database
    db.update("bi", 1, True, now=2.0)
    assert wire.poll(2.0) == []
    assert [o.index for o in wire.ask("C2 01 3C 02 06").objects] == [1]


def test_no_unsolicited_before_the_null_one_is_confirmed() -> None:
    wire, _ = _unsolicited_wire()
    wire.send("C0 14 3C 02 06")
    wire.session.database.update("bi", 1, True, now=1.0)
    assert hexes(wire.poll(1.0)) == []  # only the null response's retries until it is confirmed
    # The retry is the same octets (IIN as first sent), not a new response.
    assert hexes(wire.poll(5.0)) == ["F0 82 90 00"]
    events = wire.send("D0 00", now=6.0)
    assert len(events) == 1 and events[0][0] == 0xF1


def test_nothing_unsolicited_unless_allowed() -> None:
    wire = make_wire()
    wire.session.database.update("bi", 1, True, now=1.0)
    assert wire.poll(1.0) == [] and wire.session.deadline is None


# bi 1 turned on at now = 2.0, as a g2v2 object (see the module docstring).
BI_1_ON_AT_2S = "02 02 17 01 01 81 D0 6F E5 CF 8B 01"


def test_configured_classes_go_unsolicited_without_an_enable() -> None:
    db = small_database()
    db.add("ai", 1, 0, event_class=2)
    wire, first = _unsolicited_wire(db, classes=(1,))
    assert hexes(first) == ["F0 82 90 00"]
    assert wire.send("D0 00", now=1.0) == []
    db.update("ai", 1, 5, now=2.0)  # class 2: not configured, so it waits for a read
    db.update("bi", 1, True, now=2.0)  # class 1: configured
    # No ENABLE_UNSOLICITED was ever sent, yet the class-1 event goes out unsolicited:
    # FIR | FIN | CON | UNS | sequence 1 = F1, function 82. IIN1 is DEVICE_RESTART | NEED_TIME
    # | CLASS_2_EVENTS (0x80 | 0x10 | 0x04 = 94): the event it carries is no longer waiting.
    assert hexes(wire.poll(2.0)) == [f"F1 82 94 00 {BI_1_ON_AT_2S}"]
    assert wire.send("D1 00", now=3.0) == []  # confirmed; class 2 is not reported
    assert wire.poll(10.0) == [] and wire.session.deadline is None
    assert [(o.group, o.index) for o in wire.ask("C0 01 3C 03 06", now=11.0).objects] == [(32, 1)]


def test_a_restart_brings_the_configured_classes_back() -> None:
    wire, _ = _unsolicited_wire(classes=(1,))
    wire.send("D0 00", now=1.0)
    # DISABLE_UNSOLICITED (15) class 1 (g60v2, 3C 02 06): the change waits.
    assert hexes(wire.send("C0 15 3C 02 06", now=1.5)) == ["C0 81 90 00"]
    wire.session.database.update("bi", 1, True, now=2.0)
    assert wire.poll(2.0) == []
    # WARM_RESTART (0E): g52v2 (34 02) 500 ms (F4 01), the event waiting (IIN1 0x92); then a
    # new null unsolicited response, sequence 1 (F1).
    answer = wire.send("C1 0E", now=3.0)
    assert hexes(answer) == ["C1 81 92 00 34 02 07 01 F4 01", "F1 82 92 00"]
    # Once it is confirmed, class 1 is reported again as configured, without an enable.
    assert hexes(wire.send("D1 00", now=4.0)) == [f"F2 82 90 00 {BI_1_ON_AT_2S}"]
