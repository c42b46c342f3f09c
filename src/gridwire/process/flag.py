"""A flag to wait on: :class:`asyncio.Event`'s ``set``, ``clear``, ``is_set`` and ``wait``,
holding nothing for waiters until one comes.

Every outstation the master looks after keeps three (its connection up, its hold released,
its task runner idle). An ``asyncio.Event`` makes a ``collections.deque`` for its waiters
when it is made, some 600 octets each whether or not anything ever waits: 2.2 KiB an
outstation of the 40 a fleet's outstation may take at rest (issue 17, D238). A :class:`Flag`
makes its list of waiters when the first comes and lets it go when it sets them free.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Literal


class Flag:
    """Set, cleared, waited on, as :class:`asyncio.Event` is: ``set`` wakes every waiter
    then waiting (each ``wait`` returns True even if the flag is cleared before it runs)."""

    __slots__ = ("_value", "_waiters")

    def __init__(self, value: bool = False) -> None:
        self._value = value
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._value

    def set(self) -> None:
        if self._value:
            return
        self._value = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._value = False

    async def wait(self) -> Literal[True]:
        """Return once the flag is set (at once when it is)."""
        if self._value:
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            if self._waiters is not None:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
