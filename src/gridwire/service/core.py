"""The service both transports serve: a master, the operation table, the dispatcher, and the
stream settings of the event streams."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gridwire.master import Master
from gridwire.service.context import Context
from gridwire.service.dispatch import Dispatcher
from gridwire.service.encoding import EventEncoder
from gridwire.service.limits import KEEPALIVE, STREAM_IDLE
from gridwire.service.limits import MESSAGE_LIMIT as MESSAGE_LIMIT  # its name here of old
from gridwire.service.operation import OperationTable
from gridwire.service.table import default_table


class Service:
    """What the HTTP app and the line server share.

    ``idle`` and ``keepalive`` are the event streams' write idleness limit and keep-alive
    interval (60 s and 15 s; tests shorten them).
    """

    def __init__(
        self,
        master: Master,
        table: OperationTable | None = None,
        *,
        device_profile: Path | None = None,
        state_dir: Path | None = None,
        idle: float = STREAM_IDLE,
        keepalive: float = KEEPALIVE,
    ) -> None:
        self.master = master
        self.table = table if table is not None else default_table()
        self.context = Context(master, device_profile, state_dir)
        self.dispatcher = Dispatcher(self.table, self.context)
        self.encoder = EventEncoder()
        self.idle = idle
        self.keepalive = keepalive

    @property
    def stopping(self) -> asyncio.Event:
        """Set once ``stop`` was asked for (or the program is ending)."""
        return self.context.stopping
