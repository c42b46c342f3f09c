"""Unsolicited responses (allowed by configuration): the null one after a start, retried
identically until confirmed; then the events of the classes a master enabled.

An unsolicited response's control octet: FIR 0x80 | FIN 0x40 | CON 0x20 | UNS 0x10 |
sequence, function 0x82. Its confirm: FIR|FIN|UNS (0xD0) | sequence, function 00.
"""

from __future__ import annotations

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.app.iin import IIN
from tests.outstation.conftest import make_wire
from tests.outstation.wire import Wire, hexes


def _unsolicited_wire() -> tuple[Wire, list[bytes]]:
    from gridwire.outstation.config import OutstationConfig
    from gridwire.outstation.generic import GenericDevice
    from gridwire.outstation.session import OutstationSession
    from tests.outstation.conftest import small_database

    session = OutstationSession(
        GenericDevice(small_database()), OutstationConfig(unsolicited=True, unsolicited_retry=5.0)
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
