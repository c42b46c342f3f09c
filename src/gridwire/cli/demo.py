"""The demo's wiring (``gridwire console --demo``, ``make demo``): a simulated IEEE 1815.2 DER
on a free loopback port, with the Device Profile document it writes of itself, added to the
console as outstation ``der``. The DER serves a small directory of files (group 70), writable,
for the ``file.*`` operations."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from gridwire.der.profiles import PROFILES
from gridwire.der.store import load_point_map
from gridwire.master import OutstationSettings
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.server import OutstationServer
from gridwire.service.config import ServiceConfig
from gridwire.service.runner import Announce
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile

DEMO_OUTSTATION = "der"


@asynccontextmanager
async def demo_der(config: ServiceConfig, announce: Announce) -> AsyncIterator[OutstationSettings]:
    """Run the demo's simulated DER for the block; the settings that add it."""
    der = SimulatedDer(load_point_map(config.tables))
    with tempfile.TemporaryDirectory(prefix="gridwire-") as folder:
        served = _demo_files(Path(folder) / "files")
        outstation = OutstationConfig(files=served, files_writable=True)
        simulator = OutstationServer(der, host="127.0.0.1", port=0, config=outstation)
        await simulator.start()
        try:
            # The demo DER's own Device Profile, for der.document and der.compare.
            document = Path(folder) / "demo-der-device-profile.xml"
            document.write_bytes(der_device_profile(der, port=simulator.port))
            announce(f"gridwire console: simulated DER on 127.0.0.1:{simulator.port}")
            yield OutstationSettings(
                name=DEMO_OUTSTATION,
                host="127.0.0.1",
                port=simulator.port,
                profile=PROFILES[0],
                device_profile=str(document),
            )
        finally:
            await simulator.close()


def _demo_files(folder: Path) -> Path:
    """The few files the demo DER serves: a settings file and a log."""
    (folder / "logs").mkdir(parents=True)
    (folder / "settings.txt").write_text("nameplate_w=10000\nramp_s=10\n")
    (folder / "logs" / "events.log").write_text("2026-01-01T00:00:00Z started\n")
    return folder
