"""The master's updates for whoever listens: frames, exchanges, unsolicited responses,
connections, the list of outstations.

Each subscriber has its own backlog. A subscriber that lets 10,000 updates wait loses them:
they are dropped, it stays subscribed, and the next thing it receives is
``("lost", {"dropped": n})`` so it knows to read its state again. Publishing never waits, so
a slow subscriber never holds up the master. Everything runs on one asyncio loop.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from gridwire.master.limits import BACKLOG_LIMIT

Update = tuple[str, dict[str, Any]]


class Subscriber:
    """One listener's backlog of updates, read with :meth:`get` or ``async for``."""

    __slots__ = ("_bus", "_closed", "_dropped", "_limit", "_queue", "_ready")

    def __init__(self, bus: EventBus, limit: int) -> None:
        self._bus = bus
        self._limit = limit
        self._queue: deque[Update] = deque()
        self._dropped = 0
        self._ready = asyncio.Event()
        self._closed = False

    @property
    def waiting(self) -> int:
        """Updates waiting to be read (a pending ``lost`` counts as one)."""
        return len(self._queue) + (1 if self._dropped else 0)

    @property
    def closed(self) -> bool:
        return self._closed

    def _put(self, update: Update) -> None:
        if len(self._queue) >= self._limit:
            self._dropped += len(self._queue)
            self._queue.clear()
        self._queue.append(update)
        self._ready.set()

    def get_nowait(self) -> Update | None:
        """The next update, or None when nothing waits."""
        if self._dropped:
            dropped, self._dropped = self._dropped, 0
            return ("lost", {"dropped": dropped})
        if self._queue:
            return self._queue.popleft()
        return None

    async def get(self) -> Update:
        """The next update, waiting for one. Raises EOFError once the subscriber is closed
        and nothing is left."""
        while True:
            update = self.get_nowait()
            if update is not None:
                return update
            if self._closed:
                raise EOFError("subscriber closed")
            self._ready.clear()
            await self._ready.wait()

    def close(self) -> None:
        """Stop receiving; what already waits can still be read."""
        if not self._closed:
            self._closed = True
            self._bus._remove(self)
            self._ready.set()

    def __aiter__(self) -> AsyncIterator[Update]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Update]:
        while True:
            try:
                yield await self.get()
            except EOFError:
                return


class EventBus:
    """Publishes updates to every subscriber, each with its own bounded backlog."""

    def __init__(self, limit: int = BACKLOG_LIMIT) -> None:
        self._limit = limit
        self._subscribers: list[Subscriber] = []

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def subscribe(self) -> Subscriber:
        sub = Subscriber(self, self._limit)
        self._subscribers.append(sub)
        return sub

    def publish(self, event: str, data: dict[str, Any]) -> None:
        """Hand ``(event, data)`` to every subscriber; never waits."""
        for sub in self._subscribers:
            sub._put((event, data))

    def close(self) -> None:
        """Close every subscriber (the master is closing)."""
        for sub in list(self._subscribers):
            sub.close()

    def _remove(self, sub: Subscriber) -> None:
        if sub in self._subscribers:
            self._subscribers.remove(sub)
