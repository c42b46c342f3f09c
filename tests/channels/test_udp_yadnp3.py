"""The master on a UDP channel to yadnp3 (opendnp3's AddUDPChannel) as an outstation:
interoperation over UDP with a stack we did not write: an integrity poll, a control received
once, every frame the master wrote decoded by tshark."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gridwire.channels.settings import UdpChannel
from gridwire.master import Master, OutstationSettings
from tests.support.net import free_port
from tests.support.peers import yadnp3_outstation
from tests.support.tshark import tshark_fields

pytestmark = pytest.mark.interop


async def test_udp_to_yadnp3(tmp_path: Path) -> None:
    ours = free_port()
    with yadnp3_outstation(points=5, extra=["--udp-remote", str(ours)]) as peer:
        pcap = tmp_path / "udp.pcap"
        master = Master(allow_control=True, capture=pcap)
        master.add_channel(
            UdpChannel(
                name="cell",
                local_host="127.0.0.1",
                local_port=ours,
                remote_host="127.0.0.1",
                remote_port=peer.port,
            )
        )
        try:
            await master.add(
                OutstationSettings(name="rtu", channel="cell", manual=True, confirm=True)
            )
            scan = await master.scan("rtu", "integrity")
            assert scan.outcome == "complete"
            assert len([v for v in master.values("rtu") if v.type == "ai"]) == 5
            result = await master.operate("rtu", {"ao": {"1": 12.5}})
            assert (result.operated, result.accepted) == (True, True)
            await peer.aexpect("operate", index=1, status="SUCCESS")
            await asyncio.sleep(0.3)
            assert len(peer.received("operate", index=1)) == 1  # sent once
        finally:
            await master.close()
    rows = tshark_fields(
        pcap, peer.port, ["dnp3.src", "dnp3.al.func"], f"tcp.dstport=={peer.port} && tcp.len>0"
    )
    assert rows and all(src == "1" for src, _ in rows), rows
    assert {"1", "5"} <= {f for _, f in rows}
