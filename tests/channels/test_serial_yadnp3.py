"""The master on a serial channel to yadnp3 (opendnp3) on a serial channel of its own, joined by
a pair of pseudo-terminals (socat): interoperation over a serial line with a stack we did not
write, an integrity poll and a control received once, its link keep-alive (REQUEST_LINK_STATUS)
answered with LINK_STATUS, every master frame decoded by tshark."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gridwire.channels.settings import SerialChannel
from gridwire.master import Master, OutstationSettings
from tests.channels.ptys import pty_pair
from tests.support.peers import yadnp3_outstation
from tests.support.tshark import tshark_fields
from tests.support.waiting import until

pytestmark = pytest.mark.interop
SERIAL_PEER_PORT = 20000  # the made-up outstation end of a serial line's capture flow


def _link_functions(master: Master, direction: str) -> set[str | None]:
    return {f.link_function for f in master.trace("rtu") if f.direction == direction}


async def test_serial_line_to_yadnp3(tmp_path: Path) -> None:
    with (
        pty_pair(tmp_path) as (master_end, outstation_end),
        yadnp3_outstation(
            points=5, extra=["--serial", outstation_end, "--keep-alive-ms", "300"]
        ) as peer,
    ):
        pcap = tmp_path / "serial.pcap"
        master = Master(allow_control=True, capture=pcap)
        master.add_channel(SerialChannel(name="com1", device=master_end, baud=115200))
        try:
            await master.add(
                OutstationSettings(name="rtu", channel="com1", manual=True, confirm=True)
            )
            scan = await master.scan("rtu", "integrity")
            assert scan.outcome == "complete"
            analog = [v for v in master.values("rtu") if v.type == "ai"]
            assert len(analog) == 5
            result = await master.operate("rtu", {"bo": {"2": True}})
            assert (result.operated, result.accepted) == (True, True)
            await peer.aexpect("operate", kind="crob", index=2, status="SUCCESS")
            await asyncio.sleep(0.3)
            assert len(peer.received("operate", index=2)) == 1  # sent once
            # yadnp3's link keep-alive on a quiet line: REQUEST_LINK_STATUS, answered.
            await until(lambda: "LINK_STATUS" in _link_functions(master, "sent"))
            assert "REQUEST_LINK_STATUS" in _link_functions(master, "received")
        finally:
            await master.close()
    rows = tshark_fields(
        pcap,
        SERIAL_PEER_PORT,
        ["dnp3.src", "dnp3.al.func"],
        f"tcp.dstport=={SERIAL_PEER_PORT} && tcp.len>0",
    )
    assert rows and all(src == "1" for src, _ in rows), rows
    assert {"1", "5"} <= {f for _, f in rows}
