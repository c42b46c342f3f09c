"""The link layer's services an outstation asks for on a serial line, against literal octets
(laid out by hand from IEEE 1815-2012 clause 9; CRCs from the tests' own CRC): over a pair of
pseudo-terminals, an outstation's RESET_LINK_STATES is acknowledged, its CONFIRMED_USER_DATA
(a null unsolicited response) is acknowledged at the link layer and confirmed at the
application layer, the same frame repeated (same FCB, as after a lost ACK) is acknowledged
again but not taken twice, and its REQUEST_LINK_STATUS answered with LINK_STATUS."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gridwire.channels.links import open_serial
from gridwire.channels.settings import SerialChannel
from gridwire.master import Master, OutstationSettings
from tests.channels.frames import frame
from tests.channels.ptys import pty_pair
from tests.master.test_association import LINK_STATUS, REQUEST_LINK_STATUS, UNSOLICITED_CONFIRM

RESET_LINK_STATES = frame(0x40, 1, 1024, b"")  # PRM, function 0, from outstation 1024 to 1
ACK = frame(0x80, 1024, 1, b"")  # DIR (from the master), secondary, function 0
# PRM|FCB|FCV|3: confirmed user data, transport C0, application F0 (FIR|FIN|CON|UNS, seq 0),
# 82 (UNSOLICITED_RESPONSE), IIN 80 00 (DEVICE_RESTART).
CONFIRMED_NULL_UNSOLICITED = frame(0x73, 1, 1024, bytes.fromhex("c0 f0 82 80 00"))
# PRM|FCV|3 (FCB 0): the next confirmed frame, transport C1 (FIR|FIN, seq 1), application F1
# (seq 1), an unsolicited response with IIN 00 00.
CONFIRMED_NEXT_UNSOLICITED = frame(0x53, 1, 1024, bytes.fromhex("c1 f1 82 00 00"))
# The master's confirm of it: transport C1 (its second segment), application D1 (UNS seq 1).
SECOND_UNSOLICITED_CONFIRM = frame(0xC4, 1024, 1, bytes.fromhex("c1 d1 00"))


async def test_link_services_the_outstation_asks_for(tmp_path: Path) -> None:
    received: asyncio.Queue[bytes] = asyncio.Queue()
    buffer = bytearray()

    async def read(count: int) -> bytes:
        while len(buffer) < count:
            buffer.extend(await asyncio.wait_for(received.get(), 5))
        out = bytes(buffer[:count])
        del buffer[:count]
        return out

    with pty_pair(tmp_path) as (master_end, outstation_end):
        fake = await open_serial(
            SerialChannel(name="fake", device=outstation_end, baud=115200),
            received.put_nowait,
            lambda reason: None,
        )
        master = Master()
        master.add_channel(SerialChannel(name="line", device=master_end, baud=115200))
        try:
            await master.add(
                OutstationSettings(name="rtu", channel="line", confirm=True, manual=True)
            )
            fake.write(RESET_LINK_STATES)
            assert await read(len(ACK)) == ACK
            fake.write(CONFIRMED_NULL_UNSOLICITED)
            assert await read(len(ACK)) == ACK
            assert await read(len(UNSOLICITED_CONFIRM)) == UNSOLICITED_CONFIRM
            # Our ACK "lost": the outstation sends the same frame again, FCB unchanged. It is
            # acknowledged again and not taken twice (no second application confirm).
            fake.write(CONFIRMED_NULL_UNSOLICITED)
            assert await read(len(ACK)) == ACK
            fake.write(CONFIRMED_NEXT_UNSOLICITED)  # FCB toggled: a new frame, taken
            assert await read(len(ACK)) == ACK
            assert await read(len(SECOND_UNSOLICITED_CONFIRM)) == SECOND_UNSOLICITED_CONFIRM
            fake.write(REQUEST_LINK_STATUS)
            assert await read(len(LINK_STATUS)) == LINK_STATUS
            assert master.session("rtu").counts.get("unsolicited") == 2
        finally:
            await master.close()
            fake.close()
            await fake.wait_closed()
