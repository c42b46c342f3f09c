"""The built-in demo map: a DER of our own making, served when no IEEE tables are installed.

It is not IEEE's tables. It follows the profile's numbering (the numbering IEEE 1815.2 took
over from the DNP3 application note AN2018) for what it has: nameplate ratings, the system
meter block AI533-556, status and alarm inputs, the controls BO0-BO11 with their mirror inputs,
seven DER functions (volt-var, volt-watt, active power limit, constant power factor, constant
vars, charge/discharge, and watt-var, which the demo DER does not support), the curve block
(selector AO244, the edit window to AO448 and AI532, the referenced indicator BI107), the
schedule block (selector AO461, ten points; :mod:`.schedules`) and energy counters with frozen counterparts. Names and state names are our own words; the values are a
10 kW, 10 kVA single-phase 240 V battery inverter, as transmitted.
"""

from __future__ import annotations

from functools import lru_cache

from gridwire.der.demo.builder import TITLE, Builder
from gridwire.der.demo.curves import DEMO_CURVES, curve_block
from gridwire.der.demo.functions import functions
from gridwire.der.demo.monitoring import counters, status_and_alarms, system_meter
from gridwire.der.demo.nameplate import availability, nameplate, references
from gridwire.der.demo.schedules import schedule_block
from gridwire.der.pointmap import PointMap

__all__ = ["DEMO_CURVES", "TITLE", "demo_map"]


@lru_cache(maxsize=1)
def demo_map() -> PointMap:
    """The demo map (built once; a PointMap does not change)."""
    b = Builder()
    nameplate(b)
    references(b)
    availability(b)
    system_meter(b)
    status_and_alarms(b)
    built = functions(b)
    block = curve_block(b)
    schedules = schedule_block(b)
    counters(b)
    return PointMap(
        b.points,
        title=TITLE,
        demo=True,
        source="gridwire (built in)",
        functions=built,
        curve_block=block,
        schedule_block=schedules,
    )
