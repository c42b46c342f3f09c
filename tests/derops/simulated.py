"""The simulated DER on loopback and a DerMaster connected to it with the demo profile."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from gridwire.der.demo import demo_map
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address
from gridwire.derops import Der, DerMaster
from gridwire.master import OutstationSettings
from gridwire.outstation import OutstationConfig, run_outstation
from gridwire.simulator import SimulatedDer

NAME = "der"


@dataclass
class Setup:
    master: DerMaster
    der: Der
    device: SimulatedDer

    def frames(self) -> int:
        """Frames sent and received so far on the outstation's connection."""
        return len(self.master.trace(NAME))


def without(point_map: PointMap, *addresses: str) -> PointMap:
    """The map less some points (an outstation that does not serve them)."""
    gone = {Address.parse(a) for a in addresses}
    return PointMap(
        [p for p in point_map.points if p.address not in gone],
        title=point_map.title,
        functions=point_map.functions,
        curve_block=point_map.curve_block,
    )


@contextlib.asynccontextmanager
async def simulated(
    *,
    allow_control: bool = True,
    device: SimulatedDer | None = None,
    profile: bool = True,
    point_map: PointMap | None = None,
    config: OutstationConfig | None = None,
) -> AsyncIterator[Setup]:
    """A simulated DER (the demo map unless ``device`` says otherwise; served with ``config``)
    and a DerMaster whose profile is ``point_map`` (the demo map unless given)."""
    device = device if device is not None else SimulatedDer()
    chosen = point_map if point_map is not None else demo_map()
    async with run_outstation(device, "127.0.0.1", 0, config=config, tick_interval=0.5) as server:
        master = DerMaster(allow_control=allow_control, profiles=lambda name: chosen)
        try:
            settings = OutstationSettings(
                name=NAME,
                host="127.0.0.1",
                port=server.port,
                profile="ieee1815.2" if profile else None,
            )
            await master.add(settings)
            await master.idle(NAME)
            yield Setup(master, Der(master, NAME), device)
        finally:
            await master.close()
