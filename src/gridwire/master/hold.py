"""Holding an outstation: while one caller holds it, no one else's request reaches it.

An evaluation check that writes settings or breaks a protocol rule must see the outstation's
answers to its own requests only, with nothing in between: no task, no scheduled scan, no
other caller's read. :meth:`Hold.__call__` (``Master.hold(outstation)``) is an async
context manager; while it is open, every request to that outstation waits before it is sent,
unless it is made by the holder.

The holder is known by a token carried in the request's context (:mod:`contextvars`): the
task that opened the hold, and any task it starts while holding (``asyncio.wait_for`` and
``gather`` do), pass; every other caller waits until the hold ends, then goes in the order
it asked. What the master does by itself (its tasks and scheduled scans, told apart by the
task name their requests carry) never passes a hold, wherever its asyncio task was started. A second holder waits for the
first to let go. Holding the same outstation again from within a hold is allowed (nothing
more happens).

    async with master.hold("der"):
        await master.operate("der", {"bo": {"5": False}})     # sent at once
        await master.read("der", {"bi": ["24"]})             # nothing got in between

Requests already in flight when the hold begins end as usual; the holder's first request
goes after them. The session calls :meth:`Hold.turn` where it takes its one-request lock.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from gridwire.process.flag import Flag

# The holds the current context holds (a token each: the Hold object itself).
_holding: contextvars.ContextVar[frozenset[Hold]] = contextvars.ContextVar(
    "gridwire_master_holding", default=frozenset()
)


class Hold:
    """The hold of one outstation (see the module's notes)."""

    __slots__ = ("__weakref__", "_held", "_holders", "_released")

    def __init__(self) -> None:
        self._held = False
        self._holders = asyncio.Lock()
        self._released = Flag(True)

    @property
    def held(self) -> bool:
        """Whether someone holds the outstation now."""
        return self._held

    def passes(self, own: bool = True) -> bool:
        """Whether a request made in the current context may go now: nobody holds the
        outstation, or the current context is the holder's. ``own`` False marks a request
        the master makes by itself (a task, a scheduled scan): it never passes a hold, even
        from a task started within the holder's context."""
        return not self._held or (own and self in _holding.get())

    @asynccontextmanager
    async def __call__(self) -> AsyncIterator[Hold]:
        """Hold the outstation until the block ends (waiting for another holder first)."""
        if self in _holding.get():
            yield self
            return
        async with self._holders:
            token = _holding.set(_holding.get() | {self})
            self._held = True
            self._released.clear()
            try:
                yield self
            finally:
                self._held = False
                self._released.set()
                _holding.reset(token)

    def turn(self, lock: asyncio.Lock, own: bool = True) -> AbstractAsyncContextManager[None]:
        """Take ``lock`` (the session's one-request lock) once the current context may send
        (:meth:`passes`): while another context holds the outstation, wait for the hold to
        end. A request that got the lock while a hold began lets it go again and waits. (A
        class, not a generator: every request of every outstation takes a turn.)"""
        return _Turn(self, lock, own)

    async def _take(self, lock: asyncio.Lock, own: bool) -> None:
        while True:
            while not self.passes(own):
                await self._released.wait()
            await lock.acquire()
            if self.passes(own):
                return
            lock.release()


class _Turn:
    """:meth:`Hold.turn`'s block."""

    __slots__ = ("_hold", "_lock", "_own")

    def __init__(self, hold: Hold, lock: asyncio.Lock, own: bool) -> None:
        self._hold = hold
        self._lock = lock
        self._own = own

    async def __aenter__(self) -> None:
        await self._hold._take(self._lock, self._own)

    async def __aexit__(self, *exc: object) -> None:
        self._lock.release()
