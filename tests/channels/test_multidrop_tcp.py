"""Three outstations behind one TCP port (a terminal server, a gateway answering for several
link addresses): one connection, each outstation polled and commanded by its link address,
unsolicited responses routed by source address; Wireshark decodes every frame the master wrote.
A lost link is lost for all and comes back as one; a TLS channel to the simulated outstation."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gridwire.channels.settings import TcpChannel, TlsChannel
from gridwire.errors import BadParameter
from gridwire.master import Master, OutstationSettings
from gridwire.net.tls_files import ClientTls
from gridwire.outstation import run_outstation
from gridwire.outstation.database_file import default_database
from gridwire.outstation.tls import TlsSettings as OutstationTls
from tests.channels.drops import ADDRESSES, NAMES, ai0, drop_server, master_on
from tests.support.certs import make_pki
from tests.support.tshark import tshark_fields
from tests.support.waiting import until


async def test_three_outstations_on_one_tcp_connection(tmp_path: Path) -> None:
    server = drop_server()
    await server.serve_tcp("127.0.0.1", 0)
    assert server.port is not None
    pcap = tmp_path / "channel.pcap"
    master = await master_on(TcpChannel(name="line", host="127.0.0.1", port=server.port), pcap)
    try:
        assert server.connections == 1  # one connection carries all three
        for address in ADDRESSES:
            exchange = await master.scan(NAMES[address], "integrity")
            assert exchange.outcome == "complete"
            assert ai0(master, NAMES[address]) == 100 + address
        # Commands, one to each, at once: each outstation's own request in flight on TCP.
        results = await asyncio.gather(
            *(master.operate(NAMES[a], {"bo": {"1": "LATCH_ON"}}) for a in ADDRESSES)
        )
        assert all(r.operated for r in results)
        for address, session in server.sessions.items():
            assert session.database.get("bo", 1).value is True, address
        # An unsolicited response from 1025 reaches b, and only b.
        before = {n: master.session(n).counts.get("unsolicited", 0) for n in NAMES.values()}
        server.sessions[1025].database.update("ai", 0, 777, now=1e9)
        server._wake.set()
        await until(lambda: ai0(master, "b") == 777)
        after = {n: master.session(n).counts.get("unsolicited", 0) for n in NAMES.values()}
        assert after["b"] > before["b"]
        assert ai0(master, "a") == 1124 and ai0(master, "c") == 1126
        status = master.status()
        [channel] = status.channels
        assert channel.open and channel.attached == list(ADDRESSES)
        assert {o.channel for o in status.outstations} == {"line"}
    finally:
        await master.close()
        await server.close()
    rows = tshark_fields(
        pcap, server.port, ["dnp3.src", "dnp3.dst"], f"tcp.dstport=={server.port} && tcp.len>0"
    )
    assert len(rows) >= 9  # a read and an operate each, and confirms
    assert all(src == "1" for src, _ in rows)  # every frame the master wrote decodes as DNP3
    assert {dst for _, dst in rows} == {str(a) for a in ADDRESSES}


async def test_a_lost_link_is_lost_for_all_and_comes_back_as_one() -> None:
    server = drop_server(unsolicited=False)
    await server.serve_tcp("127.0.0.1", 0)
    assert server.port is not None
    master = Master()
    master.add_channel(TcpChannel(name="line", host="127.0.0.1", port=server.port))
    try:
        for address in ADDRESSES:
            settings = OutstationSettings(
                name=NAMES[address],
                channel="line",
                outstation_address=address,
                manual=True,
                reconnect=0.2,
            )
            await master.add(settings)
        assert server.connections == 1
        assert server._close_current is not None
        server._close_current()  # the gateway drops the connection
        await until(lambda: not any(master.session(n).connected for n in NAMES.values()))
        await until(lambda: all(master.session(n).connected for n in NAMES.values()))
        assert server.connections == 2  # the three came back over one new connection
        for address in ADDRESSES:
            assert (await master.scan(NAMES[address], "integrity")).outcome == "complete"
    finally:
        await master.close()
        await server.close()


async def test_a_tls_channel(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    server_tls = OutstationTls(
        ca=str(pki.ca), certificate=str(pki.server.certificate), key=str(pki.server.key)
    )
    client_tls = ClientTls(
        ca=str(pki.ca),
        certificate=str(pki.client.certificate),
        key=str(pki.client.key),
        server_name="localhost",
    )
    async with run_outstation(default_database(), "127.0.0.1", 0, tls=server_tls) as server:
        master = Master()
        master.add_channel(
            TlsChannel(name="secure", host="127.0.0.1", port=server.port, tls=client_tls)
        )
        try:
            await master.add(OutstationSettings(name="o", channel="secure", manual=True))
            assert (await master.scan("o", "integrity")).outcome == "complete"
            [status] = master.status().channels
            assert (status.kind, status.open) == ("tls", True)
        finally:
            await master.close()


def test_a_tls_channel_with_unusable_files_is_refused_at_once(tmp_path: Path) -> None:
    missing = str(tmp_path / "nothing.pem")
    tls = ClientTls(ca=missing, certificate=missing, key=missing)
    with pytest.raises(BadParameter, match=r"nothing\.pem"):
        Master().add_channel(TlsChannel(name="s", host="127.0.0.1", port=1, tls=tls))
