"""A serial channel over a pair of pseudo-terminals (socat): three outstations at link
addresses 1024-1026 answer on one line (RS-485 multi-drop as gridwire's simulated outstation
serves it). Each is polled and commanded by its address; one request is on the line at a time
(half-duplex), whoever asks; an unsolicited response reaches the outstation that sent it;
Wireshark decodes every frame the master wrote (captured as the capture module does)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridwire.channels.channel import Drop
from gridwire.channels.settings import SerialChannel
from gridwire.outstation.multidrop import DropServer
from tests.channels.drops import ADDRESSES, NAMES, ai0, drop_server, master_on
from tests.channels.ptys import pty_pair
from tests.support.tshark import tshark_fields
from tests.support.waiting import until

SERIAL_PEER_PORT = 20000  # the made-up outstation end of a serial line's capture flow


@pytest.fixture
def line(tmp_path: Path) -> Iterator[tuple[str, str]]:
    with pty_pair(tmp_path) as ends:
        yield ends


def _function(frame: bytes) -> int | None:
    """The application function of a frame carrying a first segment, else None."""
    if len(frame) > 12 and frame[10] & 0x40:
        return frame[12]
    return None


async def test_three_outstations_on_one_serial_line(
    line: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    master_end, outstation_end = line
    server: DropServer = drop_server()
    await server.serve_serial(SerialChannel(name="sim", device=outstation_end, baud=115200))
    pcap = tmp_path / "serial.pcap"
    channel = SerialChannel(name="rs485", device=master_end, baud=115200)
    master = await master_on(channel, pcap)
    on_line: list[tuple[str, int]] = []  # requests written and frames delivered, in order
    write, deliver = Drop.write, Drop.deliver

    def spy_write(drop: Drop, data: bytes) -> None:
        if _function(data) not in (None, 0):  # a request (not a CONFIRM)
            on_line.append(("request", drop.address))
        write(drop, data)

    def spy_deliver(drop: Drop, frame: bytes) -> None:
        on_line.append(("frame", drop.address))
        deliver(drop, frame)

    monkeypatch.setattr(Drop, "write", spy_write)
    monkeypatch.setattr(Drop, "deliver", spy_deliver)
    try:
        sessions = [master.session(NAMES[a]) for a in ADDRESSES]
        assert all(s.settings.response_timeout == 2.0 for s in sessions)  # the line's default
        # Three integrity polls asked at once: on the line one after another.
        exchanges = await asyncio.gather(*(master.scan(NAMES[a], "integrity") for a in ADDRESSES))
        assert [e.outcome for e in exchanges] == ["complete"] * 3
        for address in ADDRESSES:
            assert ai0(master, NAMES[address]) == 100 + address
        requests = [i for i, (kind, _) in enumerate(on_line) if kind == "request"]
        assert len(requests) == 3
        for here, there in itertools.pairwise(requests):
            asked = on_line[here][1]
            assert ("frame", asked) in on_line[here:there], on_line  # answered before the next
        results = await asyncio.gather(
            *(master.operate(NAMES[a], {"ao": {"2": a}}) for a in ADDRESSES)
        )
        assert all(r.operated for r in results)
        for address, session in server.sessions.items():
            assert session.database.get("ao", 2).value == address
        server.sessions[1026].database.update("ai", 0, 555, now=1e9)
        server._wake.set()
        await until(lambda: ai0(master, "c") == 555)
        assert master.session("c").counts.get("unsolicited", 0) >= 1
        assert ai0(master, "a") == 1124 and ai0(master, "b") == 1125
        [status] = master.status().channels
        assert status.kind == "serial" and status.half_duplex and status.open
    finally:
        await master.close()
        await server.close()
    rows = tshark_fields(
        pcap,
        SERIAL_PEER_PORT,
        ["dnp3.src", "dnp3.dst", "dnp3.al.func"],
        f"tcp.dstport=={SERIAL_PEER_PORT} && tcp.len>0",
    )
    assert len(rows) >= 6
    assert all(src == "1" for src, _, _ in rows), rows  # every master frame decodes as DNP3
    functions = {f for _, _, f in rows}
    assert {"1", "5"} <= functions  # READ, DIRECT_OPERATE
