"""The simulated IEEE 1815.2 DER: a battery inverter that serves a point map (the built-in demo
map, or tables built from IEEE's workbook) through the outstation.

    from gridwire.simulator import SimulatedDer
    from gridwire.outstation import run_outstation

    async with run_outstation(SimulatedDer(), "127.0.0.1", 0) as server:
        ...  # a master connects to server.port
"""

from gridwire.simulator.curves import CurveStatuses
from gridwire.simulator.der import SimulatedDer

__all__ = ["CurveStatuses", "SimulatedDer"]
