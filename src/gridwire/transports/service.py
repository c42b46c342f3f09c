"""The service both transports serve: a master, the operation table, the dispatcher, and the
stream settings of the event streams."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gridwire.master import Master
from gridwire.operations.context import Context
from gridwire.operations.declaration import OperationTable
from gridwire.operations.dispatch import Dispatcher
from gridwire.operations.encoding import EventEncoder
from gridwire.operations.limits import KEEPALIVE, STREAM_IDLE
from gridwire.operations.limits import MESSAGE_LIMIT as MESSAGE_LIMIT  # its name here of old
from gridwire.operations.table import default_table


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
