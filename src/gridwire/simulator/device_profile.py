"""The simulated DER's own Device Profile document (``gridwire sim --der
--write-device-profile FILE``; ``console --demo`` gives it to the demo outstation).

Each point the DER serves is declared as it serves it: its name and section from the tables, its event
class, deadband and variations from the database the DER built (output statuses report no
events of their own: their mirror inputs do), in class 0 (the outstation's class 0 response
carries every static point), and an analog point's range, scale and units from the tables.
The implementation table is the outstation's own (:mod:`gridwire.outstation.implementation`).
"""

from __future__ import annotations

from gridwire import __version__
from gridwire.der.points import Kind, Point
from gridwire.devprofile.writer import DeviceFacts, PointEntry, write_device_profile
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.implementation import implementation_table
from gridwire.outstation.points import PointType
from gridwire.simulator.der import SimulatedDer

DEVICE_NAME = "gridwire simulated IEEE 1815.2 DER"
_TYPES: dict[Kind, PointType] = {
    Kind.BI: "bi",
    Kind.BO: "bo",
    Kind.CTR: "counter",
    Kind.AI: "ai",
    Kind.AO: "ao",
}


def _entry(der: SimulatedDer, point: Point) -> PointEntry:
    type = _TYPES[point.kind]
    stored = der.database.get(type, point.index)
    frozen = der.database.point("frozen", point.index) if point.kind is Kind.CTR else None
    analog = point.kind in (Kind.AI, Kind.AO)
    return PointEntry(
        type=type,
        index=point.index,
        name=point.name,
        description=" / ".join(p for p in (point.section, point.purpose) if p),
        event_class=stored.event_class,
        class_0=True,
        static_variation=stored.static_variation,
        event_variation=stored.event_variation,
        states=point.states,
        minimum=point.minimum if analog else None,
        maximum=point.maximum if analog else None,
        scale=point.multiplier,
        offset=point.offset,
        units=point.units,
        deadband=stored.deadband if point.kind is Kind.AI else None,
        frozen=frozen is not None,
        frozen_event_class=frozen.event_class if frozen is not None else 0,
        frozen_static_variation=frozen.static_variation if frozen is not None else None,
        frozen_event_variation=frozen.event_variation if frozen is not None else None,
    )


def der_device_profile(
    der: SimulatedDer, config: OutstationConfig | None = None, port: int | None = None
) -> bytes:
    """The Device Profile document of ``der`` served with ``config`` on TCP ``port``."""
    config = config or OutstationConfig()
    facts = DeviceFacts(
        document_name=f"{DEVICE_NAME}: {der.map.title}",
        description=f"Device Profile of the DER gridwire simulates: {der.map.describe()}",
        vendor="gridwire",
        device=DEVICE_NAME,
        software_version=__version__,
        outstation_address=config.outstation_address,
        master_address=config.master_address,
        tcp_port=port,
        unsolicited=config.unsolicited,
        max_fragment=config.max_fragment,
        author=f"gridwire {__version__}",
    )
    return write_device_profile(
        facts, implementation_table(), (_entry(der, p) for p in der.map.points if der.serves(p))
    )
