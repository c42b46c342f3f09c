"""File answers an outstation defers (IEEE 1815-2012 file procedures; D200).

An outstation may answer OPEN_FILE, CLOSE_FILE, DELETE_FILE, GET_FILE_INFO, ABORT_FILE or a
block's READ with a null response (no object) and deliver the g70v4 (command status), g70v5
or g70v6 (a block, or its status) or g70v7 (descriptor) later, as a file event: in the
response to a read of the event class it was put in, or unsolicited. The procedure then
waits for it, within the operation's timeout:

- a :class:`Watch` is opened before the request is sent, so nothing that arrives after it is
  missed: it sees every exchange and unsolicited response of the outstation on the master's
  bus (its own reads, the automatic tasks' reads and schedules' scans alike) and picks the
  g70 object that answers, by request id (open, delete, file info), handle (close, abort) or
  handle and block (a block);
- while none has come it reads the classes the latest indications say hold events (at once,
  then at most every :data:`POLL_GAP` seconds), else classes 1, 2 and 3 every
  :data:`POLL_EVERY` seconds.

What those reads bring is taken in by the session as every response is: its point events go
to the master's value store and event log once, through the one path they always take; the
watch only looks at what was taken in and keeps nothing. A g70 object that answers nothing
this procedure asked is left alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.objects.records import (
    FileCommandStatus,
    FileDescriptor,
    FileTransport,
    FileTransportStatus,
)
from gridwire.master.bus import EventBus, Update
from gridwire.master.scans import class_read
from gridwire.master.tasks.events_when_indicated import classes_indicated

if TYPE_CHECKING:
    from gridwire.master.session import Session

POLL_GAP = 0.25
"""Least seconds between two reads of the classes the indications name, while waiting."""
POLL_EVERY = 1.0
"""Seconds between reads of classes 1, 2 and 3 while no indication names a class."""

Match = Callable[[object], bool]


def by_request(request_id: int, *, descriptor: bool = False) -> Match:
    """The g70v4 (or, for GET_FILE_INFO, the g70v7) carrying ``request_id``."""
    kinds: tuple[type, ...] = (
        (FileCommandStatus, FileDescriptor) if descriptor else (FileCommandStatus,)
    )
    return lambda v: isinstance(v, kinds) and getattr(v, "request_id", None) == request_id


def by_handle(handle: int) -> Match:
    """The g70v4 of a close or abort of ``handle``."""
    return lambda v: isinstance(v, FileCommandStatus) and v.file_handle == handle


def by_block(handle: int, block: int) -> Match:
    """The g70v5 block (or g70v6 status) of ``handle``'s block ``block``."""
    return lambda v: (
        isinstance(v, FileTransport | FileTransportStatus)
        and v.file_handle == handle
        and v.block == block
    )


def _objects(update: Update, outstation: str) -> list[Any]:
    kind, data = update
    if data.get("outstation") != outstation:
        return []
    if kind == "exchange":
        return list(data["exchange"].objects)
    if kind == "unsolicited":
        return list(data.get("objects") or [])
    return []


class Watch:
    """What an outstation's responses and unsolicited responses carry, from its opening on."""

    def __init__(self, bus: EventBus, session: Session) -> None:
        self.session = session
        self.polls = 0
        self._subscriber = bus.subscribe()

    def __enter__(self) -> Watch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._subscriber.close()

    def _found(self, update: Update | None, match: Match) -> object | None:
        """The answer among ``update`` and every update waiting after it, or None."""
        while update is not None:
            for obj in _objects(update, self.session.name):
                value: object = obj.value
                if obj.group == 70 and match(value):
                    return value
            update = self._subscriber.get_nowait()
        return None

    async def answer(self, match: Match) -> object:
        """The deferred answer ``match`` picks; reads events until it comes (the caller's
        timeout bounds the wait)."""
        asked = last_poll = time.monotonic()  # the request itself was the latest exchange
        while True:
            found = self._found(self._subscriber.get_nowait(), match)
            if found is not None:
                return found
            since = time.monotonic() - last_poll
            named = classes_indicated(self.session.indications or IIN(0))
            first = last_poll == asked  # the indications name a class: read it at once
            if (named and (first or since >= POLL_GAP)) or since >= POLL_EVERY:
                self.polls += 1
                await self.session.exchange(FunctionCode.READ, class_read(named or (1, 2, 3)))
                last_poll = time.monotonic()
                continue
            wait = (POLL_GAP if named else POLL_EVERY) - since
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    found = self._found(await self._subscriber.get(), match)
            if found is not None:
                return found
