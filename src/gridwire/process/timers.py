"""One timer for the many that a big fleet arms: :class:`Timers` keeps every outstation's
next scheduled scan and every response deadline in one heap of its own, and asks asyncio for
a single handle, at the earliest of them rounded up to the next :data:`TICK`, that runs all
those then due.

Why (DESIGN D224): with 10,000 outstations polled every 5 s, each poll armed two asyncio
timers (the schedule's ``asyncio.sleep`` and the response deadline). A timer handle is four
objects that live for seconds (the handle, a copied context, its arguments, the sleep's
future and coroutine), so every young-generation collection walked some 100,000 of them, and
each push and pop on the loop's heap compared handles by a Python ``__lt__``. Here an entry
is one small list compared in C, and a tick runs every timer due within it.

A timer runs at its time or up to one :data:`TICK` later, never earlier; timers due in
the same tick run in the order of their times. Times are the running loop's
(``loop.time()``), as ``asyncio.sleep`` and ``call_later`` count them.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import itertools
import math
import weakref
from collections.abc import Callable
from typing import Any, Final

TICK: Final = 0.005
"""Seconds: timers due within the same tick share one run of the loop's timer."""

Entry = list[Any]
"""``[when, serial, callback, argument]``; a cancelled entry's callback is None."""


class Timers:
    """The timers of one event loop (:func:`timers`), in one heap."""

    __slots__ = ("_armed", "_armed_at", "_cancelled", "_heap", "_serial", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._heap: list[Entry] = []
        self._serial = itertools.count()
        self._armed: asyncio.TimerHandle | None = None
        self._armed_at = math.inf
        self._cancelled = 0  # entries cancelled that are still in the heap

    def __len__(self) -> int:
        """Entries in the heap, cancelled ones not yet dropped included."""
        return len(self._heap)

    def call_later(self, delay: float, callback: Callable[[Any], object], argument: Any) -> Entry:
        """Run ``callback(argument)`` ``delay`` seconds from now (see the module's note on
        ticks); the entry returned is what :meth:`cancel` takes."""
        when = self.loop.time() + max(0.0, delay)
        entry = [when, next(self._serial), callback, argument]
        heapq.heappush(self._heap, entry)
        at = math.ceil(when / TICK) * TICK
        if at < self._armed_at:
            self._arm(at)
        return entry

    def cancel(self, entry: Entry | None) -> None:
        """The entry's callback will not run (nothing if it ran or was cancelled already).
        Once cancelled entries are half the heap, it is rebuilt without them (as asyncio
        does its own): a cancelled deadline does not linger for its whole time."""
        if entry is None or entry[2] is None:
            return
        entry[2] = entry[3] = None
        self._cancelled += 1
        heap = self._heap
        if self._cancelled > 64 and self._cancelled * 2 > len(heap):
            heap[:] = [kept for kept in heap if kept[2] is not None]
            heapq.heapify(heap)
            self._cancelled = 0

    def sleep(self, delay: float) -> asyncio.Future[None]:
        """What ``asyncio.sleep(delay)`` is, on this heap: a future done ``delay`` seconds
        from now (no coroutine made per sleep). A waiter cancelled cancels it; its entry
        then does nothing at its time."""
        future = self.loop.create_future()
        self.call_later(delay, _wake, future)
        return future

    def _arm(self, at: float) -> None:
        if self._armed is not None:
            self._armed.cancel()
        self._armed_at = at
        self._armed = self.loop.call_at(at, self._run, context=_CONTEXT)

    def _run(self) -> None:
        """The loop's handle: every entry due by the tick it was armed for, in order of
        time, run after the next tick is armed (a callback may arm timers of its own)."""
        limit = max(self.loop.time(), self._armed_at)
        self._armed, self._armed_at = None, math.inf
        heap = self._heap
        due: list[Entry] = []
        while heap and heap[0][0] <= limit:
            entry = heapq.heappop(heap)
            if entry[2] is None:
                self._cancelled = max(0, self._cancelled - 1)
            else:
                due.append(entry)
        while heap and heap[0][2] is None:  # a cancelled deadline needs no wake-up
            heapq.heappop(heap)
            self._cancelled = max(0, self._cancelled - 1)
        if heap:
            self._arm(math.ceil(heap[0][0] / TICK) * TICK)
        for entry in due:
            callback, argument = entry[2], entry[3]
            if callback is not None:  # not cancelled by a callback run before it
                entry[2] = entry[3] = None
                try:
                    callback(argument)
                except Exception as exc:  # as asyncio does a handle's: told, the rest run
                    self.loop.call_exception_handler(
                        {"message": "a timer's callback failed", "exception": exc}
                    )


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


_CONTEXT: Final = contextvars.Context()
"""The context the loop's handle runs in: an empty one, not a copy made at every arming.
Each callback runs in it; none of them reads a context variable."""

_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Timers] = weakref.WeakKeyDictionary()


def timers() -> Timers:
    """The running loop's timers (asked for at every poll: the last loop's are kept at
    hand, as a weak dictionary's look-up makes a weak reference each time)."""
    loop = asyncio.get_running_loop()
    last = _last
    if last is not None and last.loop is loop:
        return last
    return _timers_of(loop)


def _timers_of(loop: asyncio.AbstractEventLoop) -> Timers:
    global _last
    found = _BY_LOOP.get(loop)
    if found is None:
        found = _BY_LOOP[loop] = Timers(loop)
    _last = found
    return found


_last: Timers | None = None
