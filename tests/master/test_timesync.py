"""Time synchronization against a session replaying literal response octets.

Times are the fake clock's: the master's wall clock starts at 1,700,000,000,000 ms
(0x18B_CFE5_6800: 48-bit little-endian 00 68 E5 CF 8B 01) and moves only as replies arrive.
Objects by hand: g50v1 absolute time 32 01 07 01 <6 octets>; g50v3 last recorded time
32 03 07 01 <6 octets> (qualifier 0x07: 1-octet count, 1); g52v2 fine time delay
34 02 07 01 <2 octets ms>; g52v1 coarse 34 01 07 01 <2 octets s>.
"""

from __future__ import annotations

import pytest

from gridwire.errors import NotAllowed, RequestError
from gridwire.master.timesync import synchronize_time, write_time
from tests.master.fakes import TIMEOUT, FakeSession, Reply

START = "0068e5cf8b01"  # 1,700,000,000,000 ms


def reply(seq: int, objects: str = "", iin: str = "0000", after_ms: float = 5.0) -> Reply:
    return Reply([bytes.fromhex(f"c{seq:x}81{iin}{objects}")], after_ms=after_ms)


async def test_lan_writes_the_time_the_record_request_left() -> None:
    session = FakeSession([reply(0, after_ms=5.0), reply(1)])
    result = await synchronize_time(session, "lan")
    # C0 18 RECORD_CURRENT_TIME; then C1 02 WRITE of g50v3 holding the time C0 18 was sent
    # (5 ms before its answer came), not the time of the write.
    assert [s.fragment.hex() for s in session.sent] == ["c018", "c102" + "32030701" + START]
    assert result.written is True
    assert result.accepted is True
    assert result.time_ms == 1_700_000_000_000
    assert result.delay_ms is None
    assert [e.function for e in result.exchanges] == ["RECORD_CURRENT_TIME", "WRITE"]


async def test_non_lan_corrects_by_the_measured_one_way_delay() -> None:
    # DELAY_MEASURE answered 50 ms after it left, the outstation reporting 10 ms of
    # turnaround (g52v2 0A 00): one-way delay (50 - 10) / 2 = 20 ms. The write carries the
    # master's clock at that moment (+50 ms) plus 20: 1,700,000,000,070 = ...846 -> 46 68 E5
    # CF 8B 01, as g50v1.
    session = FakeSession([reply(0, "340207010a00", after_ms=50.0), reply(1)])
    result = await synchronize_time(session, "non_lan")
    assert [s.fragment.hex() for s in session.sent] == [
        "c017",
        "c102" + "32010701" + "4668e5cf8b01",
    ]
    assert result.delay_ms == pytest.approx(20.0)
    assert result.time_ms == 1_700_000_000_070
    assert (result.written, result.accepted) == (True, True)
    assert [e.function for e in result.exchanges] == ["DELAY_MEASURE", "WRITE"]


async def test_non_lan_coarse_delay_in_seconds() -> None:
    # g52v1 (seconds) of 0, a round trip of 50 ms: delay 25 ms; 1,700,000,000,075 = ...84B.
    session = FakeSession([reply(0, "340107010000", after_ms=50.0), reply(1)])
    result = await synchronize_time(session, "non_lan")
    assert session.sent[1].fragment.hex() == "c102" + "32010701" + "4b68e5cf8b01"
    assert result.delay_ms == pytest.approx(25.0)


async def test_non_lan_turnaround_longer_than_the_round_trip_gives_no_delay() -> None:
    # 100 ms of turnaround (64 00) claimed for a 50 ms round trip: delay 0, time as it is.
    session = FakeSession([reply(0, "340207016400", after_ms=50.0), reply(1)])
    result = await synchronize_time(session, "non_lan")
    assert result.delay_ms == 0.0
    assert session.sent[1].fragment.hex() == "c102" + "32010701" + "3268e5cf8b01"


async def test_non_lan_without_a_delay_object_writes_nothing() -> None:
    session = FakeSession([reply(0)])
    result = await synchronize_time(session, "non_lan")
    assert len(session.sent) == 1
    assert (result.written, result.accepted, result.time_ms) == (False, None, None)


@pytest.mark.parametrize("procedure", ["lan", "non_lan"])
async def test_refused_first_request_writes_nothing(procedure: str) -> None:
    # IIN2 bit 0 FUNC_NOT_SUPPORTED: the outstation does not do this procedure.
    session = FakeSession([reply(0, iin="0001")])
    result = await synchronize_time(session, procedure)
    assert len(session.sent) == 1
    assert (result.written, result.accepted) == (False, False)
    assert result.exchanges[0].indications == ["FUNC_NOT_SUPPORTED"]


@pytest.mark.parametrize("procedure", ["lan", "non_lan"])
async def test_unanswered_first_request_writes_nothing_and_is_not_sent_again(
    procedure: str,
) -> None:
    session = FakeSession([TIMEOUT])
    result = await synchronize_time(session, procedure)
    assert len(session.sent) == 1
    assert (result.written, result.accepted) == (False, None)
    assert result.exchanges[0].outcome == "timeout"


async def test_write_refused_or_unanswered() -> None:
    # PARAMETER_ERROR (IIN2 bit 2: 00 04) to the write: written, not accepted.
    session = FakeSession([reply(0), reply(1, iin="0004")])
    result = await synchronize_time(session, "lan")
    assert (result.written, result.accepted) == (True, False)
    session = FakeSession([reply(0), TIMEOUT])
    result = await synchronize_time(session, "lan")
    assert (result.written, result.accepted) == (True, None)
    assert len(session.sent) == 2


async def test_not_allowed_sends_nothing() -> None:
    for procedure in ("lan", "non_lan"):
        session = FakeSession([], allow_control=False)
        with pytest.raises(NotAllowed):
            await synchronize_time(session, procedure)
        assert session.sent == []
    session = FakeSession([], allow_control=False)
    with pytest.raises(NotAllowed):
        await write_time(session)
    assert session.sent == []


async def test_unknown_procedure() -> None:
    session = FakeSession([])
    with pytest.raises(RequestError, match="procedure 'gps'"):
        await synchronize_time(session, "gps")
    assert session.sent == []


async def test_write_time_writes_the_clock_now() -> None:
    session = FakeSession([reply(0)])
    exchange = await write_time(session)
    assert session.sent[0].fragment.hex() == "c002" + "32010701" + START
    assert (exchange.function, exchange.outcome) == ("WRITE", "complete")


async def test_write_time_holds_the_clock_as_the_write_leaves() -> None:
    # The write waits 30 ms for its turn (a request in flight): it carries 1,700,000,000,030
    # (...81E: 1E 68 E5 CF 8B 01), the time it leaves, not the time it was asked for.
    session = FakeSession([reply(0)])
    session.queued_ms = 30.0
    await write_time(session)
    assert session.sent[0].fragment.hex() == "c002" + "32010701" + "1e68e5cf8b01"


async def test_non_lan_time_is_read_when_the_write_leaves() -> None:
    # Each request waits 30 ms for its turn. DELAY_MEASURE leaves at +30, is answered at +80
    # with 10 ms of turnaround (delay (50 - 10) / 2 = 20); the write leaves at +110 and holds
    # +130 (...882: 82 68 E5 CF 8B 01). Read at hand-off it would have held +100.
    session = FakeSession([reply(0, "340207010a00", after_ms=50.0), reply(1)])
    session.queued_ms = 30.0
    result = await synchronize_time(session, "non_lan")
    assert session.sent[1].fragment.hex() == "c102" + "32010701" + "8268e5cf8b01"
    assert (result.delay_ms, result.time_ms) == (pytest.approx(20.0), 1_700_000_000_130)
