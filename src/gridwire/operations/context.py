"""What an operation's handler is given: the master, and what the service around it offers."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

from gridwire.der.pointmap import PointMap
from gridwire.derops.profile import point_map_of
from gridwire.master import Master
from gridwire.operations.results import StopResult
from gridwire.process.caller import caller

log = logging.getLogger("gridwire.service")


@dataclass
class Context:
    """The service as its operations see it.

    ``device_profile`` is the Device Profile document given with ``--device-profile`` (for the
    operations that compare against one); ``state_dir`` where evaluations keep their restore
    journals (None: the user's state directory). ``stopping`` is set by :meth:`stop`; the transports
    end once the answer to the message that set it has been written.
    """

    master: Master
    device_profile: Path | None = None
    state_dir: Path | None = None
    stopping: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def allow_control(self) -> bool:
        return self.master.allow_control

    def stop(self) -> StopResult:
        """Ask the service to end, logging who asked (``line 127.0.0.1:50212``)."""
        log.info("stop asked by %s: the service ends", caller())
        self.stopping.set()
        return StopResult(stopping=True)

    def point_map(self, outstation: str) -> PointMap:
        """The point map of the outstation's profile; RequestError when it has none."""
        return point_map_of(self.master, outstation)
