"""The device attributes (g0, set 0) the simulated DER serves, as a real inverter's nameplate
would give them: who made it, what it is, its serial number and versions, and the counts of
the points it serves. The product name states its ratings, read from the map's nameplate
(engineering units); a map without them gives the name alone.
"""

from __future__ import annotations

from gridwire import __version__
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind
from gridwire.dnp3.objects.records import Attribute
from gridwire.outstation.database import Database
from gridwire.outstation.points import PointType
from gridwire.simulator import profile as P

VENDOR = "gridwire"
SERIAL = "GW-SIM-0001"
HARDWARE = "sim-1"
BUILD_DATE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z, the configuration's build date
_COUNTS: tuple[tuple[PointType, int, int], ...] = (
    # type, variation of "number of points", variation of "maximum index"
    ("ai", 233, 232),
    ("counter", 229, 228),
    ("bo", 224, 223),
    ("ao", 221, 220),
    ("bi", 239, 238),
)


def _rating(point_map: PointMap, index: int) -> float | None:
    point = point_map.get(Kind.AI, index)
    if point is None or not isinstance(point.value, int | float):
        return None
    return point.to_engineering(point.value)


def product_name(point_map: PointMap) -> str:
    """ "Simulated DER battery inverter", with its ratings when the nameplate gives them."""
    name = "Simulated DER battery inverter"
    watts, energy = _rating(point_map, P.RATED_W), _rating(point_map, P.CAPACITY_WH)
    ratings = [f"{watts / 1000:g} kW" if watts else "", f"{energy / 1000:g} kWh" if energy else ""]
    shown = " / ".join(r for r in ratings if r)
    return f"{name} {shown}" if shown else name


def serve_attributes(database: Database, point_map: PointMap) -> None:
    """Give ``database`` the standard attributes of set 0."""
    text = {
        252: VENDOR,
        250: product_name(point_map),
        248: SERIAL,
        243: HARDWARE,
        242: __version__,
        249: "2:2012",  # subset level 2, IEEE 1815-2012
        247: "der",
        196: point_map.title[:120],
    }
    for variation, value in text.items():
        database.set_attribute(variation, Attribute("VSTR", value))
    database.set_attribute(198, Attribute("TIME", BUILD_DATE_MS))
    database.set_attribute(203, Attribute("FLT", 0.0))  # altitude, metres
    for type, number, highest in _COUNTS:
        indices = database.indices(type)
        database.set_attribute(number, Attribute("UINT", len(indices)))
        if indices:
            database.set_attribute(highest, Attribute("UINT", indices[-1]))
