"""Time, restarts, the restart indication, freezes, class assignment: literal requests as
IEEE 1815-2012 lays them out, and the responses they must draw."""

from __future__ import annotations

from gridwire.dnp3.app.iin import IIN
from tests.outstation.conftest import EPOCH_MS, make_wire
from tests.outstation.wire import Wire, hexes

# 2024-01-01T00:00:00Z = 1_704_067_200_000 ms = 0x018CC251F400, six octets little-endian.
NEW_YEAR_MS = 1_704_067_200_000
NEW_YEAR = "00 F4 51 C2 8C 01"


def _time(wire: Wire, now: float) -> int:
    answer = wire.ask("CF 01 32 01 07 01", now=now)
    value = answer.objects[0].value
    assert isinstance(value, int)
    return value


def test_time_write_clears_need_time(wire: Wire) -> None:
    # WRITE (02) g50v1 (32 01), qualifier 0x07 count 1, the time. IIN1 0x90 -> 0x80.
    assert hexes(wire.send(f"C0 02 32 01 07 01 {NEW_YEAR}", now=3.0)) == ["C0 81 80 00"]
    assert _time(wire, 4.5) == NEW_YEAR_MS + 1500


def test_need_time_returns_after_the_resync_period() -> None:
    wire = make_wire(need_time_after=60.0)
    wire.send(f"C0 02 32 01 07 01 {NEW_YEAR}", now=1.0)
    assert not wire.ask("C1 01 3C 01 06", now=60.0).iin & IIN.NEED_TIME
    assert wire.ask("C2 01 3C 01 06", now=61.0).iin & IIN.NEED_TIME


def test_lan_time_procedure(wire: Wire) -> None:
    # RECORD_CURRENT_TIME (18) at now=5.0: an empty response.
    assert hexes(wire.send("C1 18", now=5.0)) == ["C1 81 90 00"]
    # WRITE g50v3 (32 03) with the master's time when it sent that request, arriving 0.25 s
    # later: the clock becomes that time plus the 250 ms since.
    assert hexes(wire.send(f"C2 02 32 03 07 01 {NEW_YEAR}", now=5.25)) == ["C2 81 80 00"]
    assert _time(wire, 6.25) == NEW_YEAR_MS + 1250
    # g50v3 again without a RECORD_CURRENT_TIME before it: PARAMETER_ERROR (IIN2 0x04).
    assert hexes(wire.send(f"C3 02 32 03 07 01 {NEW_YEAR}", now=7.0)) == ["C3 81 80 04"]


def test_delay_measure(wire: Wire) -> None:
    # DELAY_MEASURE (17): g52v2 (34 02), count 1, the processing delay in ms (0).
    assert hexes(wire.send("C3 17")) == ["C3 81 90 00 34 02 07 01 00 00"]


def test_clear_restart_indication(wire: Wire) -> None:
    # WRITE g80v1 (50 01), qualifier 0x00 start 7 stop 7, packed value 0: IIN1.7 cleared.
    assert hexes(wire.send("C0 02 50 01 00 07 07 00")) == ["C0 81 10 00"]
    # Setting it (value 1) or writing another bit is refused PARAMETER_ERROR.
    assert hexes(wire.send("C1 02 50 01 00 07 07 01")) == ["C1 81 10 04"]
    assert hexes(wire.send("C2 02 50 01 00 04 04 00")) == ["C2 81 10 04"]
    # Writing what the outstation does not take (g30v1 values): OBJECT_UNKNOWN (0x02).
    assert hexes(wire.send("C3 02 1E 01 00 00 00 01 00 00 00 00")) == ["C3 81 10 02"]


def test_cold_and_warm_restart(wire: Wire) -> None:
    db = wire.session.database
    wire.send("C0 02 50 01 00 07 07 00")
    wire.send(f"C1 02 32 01 07 01 {NEW_YEAR}")
    db.update("ai", 0, 99, now=2.0)
    # WARM_RESTART (0E): g52v2 (34 02) 500 ms (F4 01). Values stay; DEVICE_RESTART is back.
    assert hexes(wire.send("C2 0E", now=3.0)) == ["C2 81 02 00 34 02 07 01 F4 01"]
    assert db.get("ai", 0).value == 99
    answer = wire.ask("C3 01 3C 01 06", now=4.0)
    assert answer.iin & IIN.DEVICE_RESTART and answer.iin & IIN.NEED_TIME
    # COLD_RESTART (0D): g52v1 (34 01) 2 s (02 00). The database starts again: its initial
    # values and no events.
    assert hexes(wire.send("C4 0D", now=5.0)) == ["C4 81 92 00 34 01 07 01 02 00"]
    assert db.get("ai", 0).value == -2
    assert len(db.events) == 0


def test_freeze_and_freeze_and_clear(wire: Wire) -> None:
    db = wire.session.database
    # IMMED_FREEZE (07) g20v0 (14 00) all (06): counter 0 (7) copied to frozen counter 0.
    assert hexes(wire.send("C0 07 14 00 06", now=2.0)) == ["C0 81 92 00"]  # + a class 1 event
    assert db.get("frozen", 0).value == 7
    assert db.get("counter", 0).value == 7
    db.update("counter", 0, 12, now=3.0)
    # FREEZE_CLEAR (09) with a range 0..0 (qualifier 0x00): frozen 12, counter back to 0.
    wire.send("C1 09 14 00 00 00 00", now=4.0)
    assert db.get("frozen", 0).value == 12 and db.get("counter", 0).value == 0
    # The frozen counter event carries the time of the freeze.
    events = wire.ask("C2 01 17 00 06", now=5.0).objects
    assert [(o.group, o.value, o.time_ms) for o in events] == [
        (23, 7, EPOCH_MS + 2000),
        (23, 12, EPOCH_MS + 4000),
    ]


def test_no_ack_freezes_draw_no_response(wire: Wire) -> None:
    db = wire.session.database
    # IMMED_FREEZE_NR (08) and FREEZE_CLEAR_NR (0A): carried out, nothing sent back.
    assert wire.send("C0 08 14 00 06") == []
    assert db.get("frozen", 0).value == 7
    assert wire.send("C1 0A 14 00 06") == []
    assert db.get("counter", 0).value == 0
    # Refused ones are silent too: analog inputs (g30) cannot be frozen here.
    assert wire.send("C2 08 1E 00 06") == []
    # The answered kind refuses out loud: OBJECT_UNKNOWN.
    assert hexes(wire.send("C3 07 1E 00 06")) == ["C3 81 92 02"]


def test_assign_class(wire: Wire) -> None:
    db = wire.session.database
    # ASSIGN_CLASS (16): class 3 (g60v4, 3C 04 06), then all binary inputs (g1v0, 01 00 06).
    assert hexes(wire.send("C0 16 3C 04 06 01 00 06")) == ["C0 81 90 00"]
    db.update("bi", 1, True, now=2.0)
    answer = wire.ask("C1 01 3C 01 06")
    assert answer.iin & IIN.CLASS_3_EVENTS and not answer.iin & IIN.CLASS_1_EVENTS
    # Class 0 (g60v1) for analog 0 by range (1E 00 00 00 00): its changes make no events.
    wire.send("C2 16 3C 01 06 1E 00 00 00 00")
    assert db.update("ai", 0, 500, now=3.0) is None
    # Points named before any class: PARAMETER_ERROR. Output commands cannot take a class:
    # OBJECT_UNKNOWN.
    assert wire.ask("C3 16 01 00 06").iin & IIN.PARAMETER_ERROR
    assert wire.ask("C4 16 3C 02 06 0C 00 06").iin & IIN.OBJECT_UNKNOWN


def test_unsolicited_refused_when_not_allowed(wire: Wire) -> None:
    # ENABLE_UNSOLICITED (14) and DISABLE_UNSOLICITED (15) without --unsolicited:
    # FUNC_NOT_SUPPORTED (IIN2.0, 0x01).
    assert hexes(wire.send("C0 14 3C 02 06")) == ["C0 81 90 01"]
    assert hexes(wire.send("C1 15 3C 02 06 3C 03 06 3C 04 06")) == ["C1 81 90 01"]
