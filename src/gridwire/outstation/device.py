"""What an outstation serves: a device owns the database and decides controls.

The generic database (:class:`gridwire.outstation.generic.GenericDevice`) and the simulated
DER (:class:`gridwire.simulator.der.SimulatedDer`) are devices.
"""

from __future__ import annotations

from typing import Protocol

from gridwire.outstation.controls import ControlHandler
from gridwire.outstation.database import Database


class Device(ControlHandler, Protocol):
    """A control handler with a database that moves on a tick and restarts on request."""

    @property
    def database(self) -> Database: ...

    def tick(self, now: float) -> None:
        """Let measurements move to ``now`` (the server calls this periodically)."""
        ...

    def restart(self, cold: bool, now: float) -> None:
        """A master asked for a cold or warm restart (after the response was built)."""
        ...
