"""The one TCP opening (channels.links.open_tcp, DESIGN D230), against a plain asyncio server
that sends an outstation's first unsolicited response the moment it accepts (octets laid out
by hand, IEEE 1815-2012 clause 9): opened with ``hold`` (the master's own connection), those
octets wait for ``start`` and then come whole, in order, before what follows; opened without
(a channel's link), they come as they arrive. TLS files that cannot be used are a request
error for ``check_tls`` and a failed connection for ``open_tcp``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gridwire.channels.links import PhysicalLink, check_tls, open_tcp
from gridwire.errors import BadParameter, ConnectionFailed
from gridwire.net.tls_files import ClientTls
from tests.channels.frames import frame
from tests.support.waiting import until

# PRM|FCB|FCV|3 from outstation 1024 to master 1: transport C0, application F0 (FIR|FIN|CON|UNS
# seq 0), 82 (UNSOLICITED_RESPONSE), IIN 80 00 (DEVICE_RESTART).
FIRST = frame(0x73, 1, 1024, bytes.fromhex("c0 f0 82 80 00"))
# PRM|FCV|3 (FCB 0): transport C1, application F1, 82, IIN 00 00.
NEXT = frame(0x53, 1, 1024, bytes.fromhex("c1 f1 82 00 00"))


class Peer:
    """Sends FIRST on accept, NEXT once the client has written anything."""

    def __init__(self) -> None:
        self.sent_first = asyncio.Event()
        self.port = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(FIRST)
        await writer.drain()
        self.sent_first.set()
        await reader.read(1)
        writer.write(NEXT)
        await writer.drain()
        await reader.read()  # until the client closes
        writer.close()


@pytest.fixture
async def peer() -> AsyncIterator[Peer]:
    peer = Peer()
    server = await asyncio.start_server(peer.serve, "127.0.0.1", 0)
    peer.port = server.sockets[0].getsockname()[1]
    async with server:
        yield peer


async def _open(peer: Peer, got: list[bytes], lost: list[str | None], hold: bool) -> PhysicalLink:
    return await open_tcp("127.0.0.1", peer.port, None, got.append, lost.append, 5.0, hold=hold)


async def test_held_octets_wait_for_start_then_come_first(peer: Peer) -> None:
    got: list[bytes] = []
    lost: list[str | None] = []
    link = await _open(peer, got, lost, hold=True)
    await asyncio.wait_for(peer.sent_first.wait(), 5)
    await asyncio.sleep(0.1)  # time for the octets to reach the link, which holds them
    assert got == []
    link.start()
    assert b"".join(got) == FIRST
    link.write(b"\x00")
    await until(lambda: len(b"".join(got)) == len(FIRST + NEXT))
    assert b"".join(got) == FIRST + NEXT
    assert link.remote == ("127.0.0.1", peer.port) and link.local[0] == "127.0.0.1"
    link.close()
    await link.wait_closed()
    assert lost == [None]


async def test_without_hold_octets_come_as_they_arrive(peer: Peer) -> None:
    got: list[bytes] = []
    link = await _open(peer, got, [], hold=False)
    await until(lambda: b"".join(got) == FIRST)
    link.start()  # nothing held: nothing again
    assert b"".join(got) == FIRST
    link.close()
    await link.wait_closed()


async def test_unusable_tls_files_are_a_request_error_then_a_failed_connection(
    tmp_path: Path, peer: Peer
) -> None:
    missing = ClientTls(
        ca=str(tmp_path / "ca.pem"),
        certificate=str(tmp_path / "me.pem"),
        key=str(tmp_path / "me.key"),
    )
    with pytest.raises(BadParameter):
        check_tls(missing)
    with pytest.raises(ConnectionFailed, match=r"^TLS settings cannot be used: "):
        await open_tcp("127.0.0.1", peer.port, missing, [].append, [].append, 5.0)
