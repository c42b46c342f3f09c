"""The real Master against a hostile outstation (tests/master/hostile.py): whatever comes
back, the answer is an Exchange (complete or timeout, with what could not be decoded in
``undecoded``), and the master keeps running: a good request afterwards still works."""

from __future__ import annotations

import asyncio
import base64
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gridwire.master.master import Master
from gridwire.master.settings import OutstationSettings
from tests.master.hostile import BEHAVIOURS, HostileOutstation
from tests.support.tshark import tshark_fields, tshark_path
from tests.support.waiting import until

NAME = "hostile"
TIMEOUT_S = 1.0  # what a request waits; a good answer on loopback takes milliseconds

COMPLETE = {
    "good",
    "good_confirmed",
    "garbage_then_good",
    "reserved_indications",
    "duplicate_answer",
    "endless_unsolicited",
}
UNDECODED = {
    "unknown_object",
    "short_object_data",
    "stop_below_start",
    "impossible_range",
    "bad_qualifier",
    "zero_count",
    "good_then_garbage_object",
}
TIMEOUT = set(BEHAVIOURS) - COMPLETE - UNDECODED


def settings(port: int) -> OutstationSettings:
    return OutstationSettings(
        name=NAME,
        host="127.0.0.1",
        port=port,
        manual=True,  # nothing unasked: each test sees only its own requests
        confirm=True,
        reconnect=None,
        response_timeout=TIMEOUT_S,
    )


@pytest.fixture
async def hostile() -> AsyncIterator[tuple[HostileOutstation, Master]]:
    async with HostileOutstation() as out:
        master = Master(allow_control=True)
        try:
            await master.add(settings(out.port))
            yield out, master
        finally:
            await master.close()


async def good_scan_still_works(out: HostileOutstation, master: Master) -> None:
    out.behaviour = "good"
    exchange = await master.scan(NAME, "class0")
    assert exchange.outcome == "complete"
    assert [(o.type, o.index, o.value) for o in exchange.objects] == [("ai", 0, 42), ("ai", 1, 43)]
    assert exchange.undecoded == []


def test_every_behaviour_has_an_expectation() -> None:
    assert set(BEHAVIOURS) == COMPLETE | UNDECODED | TIMEOUT
    assert not COMPLETE & UNDECODED


@pytest.mark.parametrize("behaviour", sorted(BEHAVIOURS))
async def test_hostile_answers(hostile: tuple[HostileOutstation, Master], behaviour: str) -> None:
    out, master = hostile
    out.behaviour = behaviour
    exchange = await master.scan(NAME, "class0")
    if behaviour in TIMEOUT:
        assert exchange.outcome == "timeout", exchange
    else:
        assert exchange.outcome == "complete", exchange
    if behaviour in UNDECODED:
        assert exchange.undecoded, exchange
        assert exchange.fragments == 1
    elif exchange.outcome == "complete":
        assert exchange.undecoded == []
        assert exchange.object_count == 2
    assert exchange.retries == 0
    assert out.requests == 1  # nothing is sent again
    await good_scan_still_works(out, master)
    status = master.status().outstations[0]
    assert status.connected


async def test_dropped_octets_are_traced_with_their_reason(
    hostile: tuple[HostileOutstation, Master],
) -> None:
    out, master = hostile
    for behaviour in ("garbage", "bad_header_crc", "bad_body_crc", "bad_length"):
        out.behaviour = behaviour
        await master.scan(NAME, "class0")
    reasons = [f.dropped for f in master.trace(NAME) if f.dropped]
    assert "garbage before a start" in reasons
    assert "bad header CRC" in reasons
    assert "bad data CRC at block 2" in reasons
    assert "bad length 3" in reasons


async def test_truncated_fragment_keeps_what_arrived(
    hostile: tuple[HostileOutstation, Master],
) -> None:
    out, master = hostile
    out.behaviour = "truncated_fragment"
    exchange = await master.scan(NAME, "class0")
    assert (exchange.outcome, exchange.fragments, exchange.object_count) == ("timeout", 1, 2)


async def test_reserved_indications_are_named(hostile: tuple[HostileOutstation, Master]) -> None:
    out, master = hostile
    out.behaviour = "reserved_indications"
    exchange = await master.scan(NAME, "class0")
    assert exchange.indications == ["RESERVED_2", "RESERVED_1"]


async def test_an_unsolicited_flood_is_confirmed_and_stored(
    hostile: tuple[HostileOutstation, Master],
) -> None:
    out, master = hostile
    subscriber = master.bus.subscribe()
    out.behaviour = "endless_unsolicited"
    exchange = await master.scan(NAME, "class0")
    assert exchange.outcome == "complete"
    await until(lambda: out.confirms == 500)
    unsolicited = 0
    while (update := subscriber.get_nowait()) is not None:
        unsolicited += update[0] == "unsolicited"
    assert unsolicited == 500
    subscriber.close()
    await good_scan_still_works(out, master)


async def test_random_octets_between_requests(hostile: tuple[HostileOutstation, Master]) -> None:
    out, master = hostile
    await good_scan_still_works(out, master)
    noise = random.Random(1815)
    for _ in range(300):
        out.send(bytes(noise.randrange(256) for _ in range(noise.randrange(1, 600))))
    # A stray 05 64 in the noise may leave the reader expecting up to one frame's worth of
    # octets: a long run of zeros brings the stream back to nothing pending.
    out.send(bytes(300))
    await asyncio.sleep(0.2)
    await good_scan_still_works(out, master)


# --- deviations through the real session, seen in the master's own capture ----------------


def capture_fields(
    master: Master, tmp_path: Path, port: int, fields: list[str], display: str
) -> list[list[str]]:
    tshark_path()
    pcap = tmp_path / "capture.pcap"
    pcap.write_bytes(base64.b64decode(master.capture(NAME).pcap))
    return tshark_fields(pcap, port, fields, display)


@pytest.mark.interop
async def test_late_confirmation_is_written_late(
    hostile: tuple[HostileOutstation, Master], tmp_path: Path
) -> None:
    out, master = hostile
    out.behaviour = "good_confirmed"
    master.deviate(NAME, {"late_confirmation": 1.0})
    exchange = await master.scan(NAME, "class0")
    assert exchange.outcome == "complete"  # the response is taken; only the confirm waits
    assert out.confirms == 0
    await until(lambda: out.confirms == 1)
    rows = capture_fields(
        master, tmp_path, out.port, ["frame.time_relative", "dnp3.al.func"], "dnp3"
    )
    times = {func: float(t) for t, func in rows}
    assert times["0"] - times["129"] >= 0.9  # CONFIRM a second after the RESPONSE


@pytest.mark.interop
async def test_withhold_and_wrong_sequence_confirmation(
    hostile: tuple[HostileOutstation, Master], tmp_path: Path
) -> None:
    out, master = hostile
    out.behaviour = "good_confirmed"
    master.deviate(NAME, {"withhold_confirmation": True})
    await master.scan(NAME, "class0")  # seq 0: not confirmed
    master.deviate(NAME, {"withhold_confirmation": False, "wrong_confirmation_sequence": True})
    await master.scan(NAME, "class0")  # seq 1: confirmed as seq 2
    await until(lambda: out.confirms == 1)
    rows = capture_fields(
        master, tmp_path, out.port, ["dnp3.al.func", "dnp3.al.seq"], "dnp3.al.func==0"
    )
    assert rows == [["0", "2"]]


@pytest.mark.interop
async def test_repeat_request_and_corrupt_header_on_the_wire(
    hostile: tuple[HostileOutstation, Master], tmp_path: Path
) -> None:
    out, master = hostile
    master.deviate(NAME, {"repeat_request": True})
    exchange = await master.scan(NAME, "class0")
    assert exchange.outcome == "complete"
    assert exchange.retries == 0  # the master itself sent it once
    await asyncio.sleep(0.2)
    assert out.requests == 2  # the outstation received it twice
    master.deviate(NAME, {"repeat_request": False, "corrupt_header_crc": True})
    exchange = await master.scan(NAME, "class0")
    assert exchange.outcome == "timeout"
    assert out.requests == 2  # no frame of it could be read
    assert out.bad_frames == 1
    master.deviate(NAME, {"corrupt_header_crc": False})
    await good_scan_still_works(out, master)
    rows = capture_fields(
        master, tmp_path, out.port, ["dnp3.al.seq"], f"dnp3 && tcp.dstport=={out.port}"
    )
    assert rows == [["0"], ["0"], ["2"]]  # seq 0 twice; seq 1 unreadable; seq 2
    corrupt = capture_fields(
        master,
        tmp_path,
        out.port,
        ["frame.number"],
        f"tcp.dstport=={out.port} && tcp.len>0 && !dnp3",
    )
    assert len(corrupt) == 1
