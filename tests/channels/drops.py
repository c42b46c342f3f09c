"""Shared by the channel tests: three outstations (link addresses 1024, 1025, 1026) behind one
link, each serving its own database (ai 0 set to 100 + its address so a value read proves which
outstation answered), and a master with all three on one channel."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gridwire.channels.settings import ChannelSettings
from gridwire.master import Master, OutstationSettings
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.database_file import default_database
from gridwire.outstation.multidrop import DropServer

ADDRESSES = (1024, 1025, 1026)
NAMES = {1024: "a", 1025: "b", 1026: "c"}


def databases() -> dict[int, Database]:
    out = {}
    for address in ADDRESSES:
        database = default_database()
        database.update("ai", 0, 100 + address, now=0.0)
        out[address] = database
    return out


def drop_server(unsolicited: bool = True) -> DropServer:
    config = OutstationConfig(
        unsolicited=unsolicited,
        unsolicited_classes=(1, 2, 3) if unsolicited else (),
        unsolicited_retry=0.3,
    )
    return DropServer(databases(), config=config)


async def master_on(channel: ChannelSettings, capture: Path | None = None) -> Master:
    master = Master(allow_control=True, capture=capture)
    master.add_channel(channel)
    await asyncio.gather(
        *(
            master.add(
                OutstationSettings(
                    name=NAMES[address],
                    channel=channel.name,
                    outstation_address=address,
                    manual=True,
                    confirm=True,
                )
            )
            for address in ADDRESSES
        )
    )
    return master


def ai0(master: Master, name: str) -> object:
    return next(v.value for v in master.values(name) if v.type == "ai" and v.index == 0)
