"""A UDP channel. Against literal octets laid out by hand (tests/master/test_association.py's,
CRCs from the tests' own bitwise CRC): the integrity poll leaves as one datagram of exactly
those octets, unconfirmed user data (no link-layer confirmation asked for on UDP), and a literal
null response completes it; a datagram from another endpoint and a frame from an unknown link
address are dropped. Against the simulated outstation answering three link addresses on one
UDP socket: polled, commanded, unsolicited routed, every master frame decoded by tshark."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from gridwire.channels.settings import UdpChannel
from gridwire.errors import NotAllowed
from gridwire.master import Master, OutstationSettings
from tests.channels.drops import ADDRESSES, NAMES, ai0, drop_server, master_on
from tests.channels.frames import frame
from tests.master.test_association import INTEGRITY, NULL_RESPONSE
from tests.support.tshark import tshark_fields
from tests.support.waiting import until


class _Peer(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.datagrams: asyncio.Queue[tuple[bytes, tuple[str, int]]] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:  # type: ignore[override]
        self.datagrams.put_nowait((data, addr))


async def test_literal_octets_over_udp() -> None:
    loop = asyncio.get_running_loop()
    transport, peer = await loop.create_datagram_endpoint(_Peer, local_addr=("127.0.0.1", 0))
    port = transport.get_extra_info("sockname")[1]
    master = Master()
    master.add_channel(
        UdpChannel(name="cell", local_host="127.0.0.1", remote_host="127.0.0.1", remote_port=port)
    )
    try:
        await master.add(OutstationSettings(name="der", channel="cell", manual=True))
        session = master.session("der")
        assert session.settings.max_request_fragment == 5 * 249  # one request, one datagram
        scan = asyncio.ensure_future(master.scan("der", "integrity"))
        datagram, master_end = await asyncio.wait_for(peer.datagrams.get(), 5)
        assert datagram == INTEGRITY  # CONTROL C4: unconfirmed user data
        # From an endpoint that is not the outstation's: dropped.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as other:
            other.sendto(NULL_RESPONSE, master_end)
        await asyncio.sleep(0.1)
        assert not scan.done()
        # A frame from link address 1030, which no outstation on the channel has: dropped.
        stranger = frame(0x44, 1, 1030, bytes.fromhex("c0 c0 81 00 00"))
        transport.sendto(stranger, master_end)
        transport.sendto(NULL_RESPONSE, master_end)
        exchange = await asyncio.wait_for(scan, 5)
        assert exchange.outcome == "complete"
        [status] = master.status().channels
        assert status.counts["unknown_frames"] == 1
        assert status.counts["last_unknown_address"] == 1030
        [kept] = master.channels.get("cell").trace()
        assert (kept.source, bytes.fromhex(kept.hex)) == (1030, stranger)
    finally:
        await master.close()
        transport.close()


async def test_three_outstations_behind_one_udp_socket(tmp_path: Path) -> None:
    server = drop_server()
    await server.serve_udp("127.0.0.1", 0)
    assert server.port is not None
    pcap = tmp_path / "udp.pcap"
    channel = UdpChannel(
        name="cell", local_host="127.0.0.1", remote_host="127.0.0.1", remote_port=server.port
    )
    master = await master_on(channel, pcap)
    try:
        for address in ADDRESSES:
            assert (await master.scan(NAMES[address], "integrity")).outcome == "complete"
            assert ai0(master, NAMES[address]) == 100 + address
        result = await master.operate("b", {"bo": {"3": "LATCH_ON"}})
        assert result.operated
        assert server.sessions[1025].database.get("bo", 3).value is True
        assert server.sessions[1024].database.get("bo", 3).value is False
        server.sessions[1024].database.update("ai", 0, 4242, now=1e9)
        server._wake.set()
        await until(lambda: ai0(master, "a") == 4242)
        assert ai0(master, "b") == 1125
    finally:
        await master.close()
        await server.close()
    rows = tshark_fields(
        pcap, server.port, ["dnp3.src", "dnp3.dst"], f"tcp.dstport=={server.port} && tcp.len>0"
    )
    assert len(rows) >= 4 and all(src == "1" for src, _ in rows), rows
    assert {dst for _, dst in rows} == {str(a) for a in ADDRESSES}


async def test_a_control_goes_once_and_only_with_control_allowed() -> None:
    loop = asyncio.get_running_loop()
    transport, peer = await loop.create_datagram_endpoint(_Peer, local_addr=("127.0.0.1", 0))
    port = transport.get_extra_info("sockname")[1]
    watching, commanding = Master(), Master(allow_control=True)
    try:
        for master in (watching, commanding):
            master.add_channel(
                UdpChannel(
                    name="cell", local_host="127.0.0.1", remote_host="127.0.0.1", remote_port=port
                )
            )
            settings = OutstationSettings(
                name="der", channel="cell", manual=True, response_timeout=0.3, read_retries=3
            )
            await master.add(settings)
        with pytest.raises(NotAllowed):
            await watching.operate("der", {"bo": {"1": "LATCH_ON"}})
        # The outstation never answers: the exchange times out, the control is not sent again.
        result = await commanding.operate("der", {"bo": {"1": "LATCH_ON"}})
        assert result.operated and result.accepted is None  # sent, never answered
        assert [e.outcome for e in result.exchanges] == ["timeout"]
        await asyncio.sleep(0.5)
        datagrams = []
        while not peer.datagrams.empty():
            datagrams.append(peer.datagrams.get_nowait()[0])
        assert len(datagrams) == 1  # the one DIRECT_OPERATE; nothing from the watching master
        assert datagrams[0][12] == 0x05  # application function: DIRECT_OPERATE
    finally:
        await watching.close()
        await commanding.close()
        transport.close()
