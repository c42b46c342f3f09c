"""The trace's memory, bounded for the whole master (DESIGN D147).

Every outstation's :class:`~gridwire.master.trace.FrameLog` keeps at most its own number of
frames (the per-outstation cap); together they keep at most :attr:`TraceBudget.limit` bytes.
A frame counts its octets plus :data:`FRAME_OVERHEAD`, the Python objects that hold it. When
a frame logged takes the total past the budget, the oldest frames of the whole master go
first, whichever outstation logged them: the logs that hold frames sit in a heap by the time
of their oldest frame, so finding the oldest is a look at the heap's top and each frame
dropped costs one heap step.

A log enters the heap when its first frame is logged and leaves it when it is found empty;
an entry whose log has meanwhile lost its oldest frames (to its own cap, or ``clear``) is put
back under the log's present oldest time when it reaches the top.
"""

from __future__ import annotations

import heapq
from itertools import count
from typing import Final, Protocol

FRAME_OVERHEAD: Final = 100
"""Bytes a frame keeps besides its octets: the bytes object's header, its time (a float)
and the four column slots of the log."""
DEFAULT_TRACE_BUDGET: Final = 256 << 20
"""The trace's memory for the whole master by default (256 MiB)."""


class BudgetedLog(Protocol):
    """What the budget needs of a frame log; ``queued`` is the budget's own mark of a log
    that has an entry in its heap."""

    queued: bool

    def oldest_time(self) -> float | None:
        """The time of the oldest frame kept; None when none is."""

    def drop_oldest(self) -> int:
        """Forget the oldest frame kept (it was dropped for room); its cost."""


class TraceBudget:
    """At most ``limit`` bytes of frames for every log that shares this budget."""

    __slots__ = ("_heap", "_serial", "_stale", "limit", "used")

    def __init__(self, limit: int = DEFAULT_TRACE_BUDGET) -> None:
        if limit < 0:
            raise ValueError(f"a trace budget is 0 bytes or more, not {limit}")
        self.limit = limit
        self.used = 0
        self._heap: list[tuple[float, int, BudgetedLog]] = []
        self._serial = count()
        self._stale = 0

    def __len__(self) -> int:
        """Logs in the heap (some may have become empty since)."""
        return len(self._heap)

    def logged(self, log: BudgetedLog, cost: int) -> None:
        """``log`` kept a frame of ``cost`` bytes (a log not in the heap enters it). Frames
        go, oldest first, until the total is within the budget."""
        self.used += cost
        if not log.queued:
            oldest = log.oldest_time()
            if oldest is not None:
                log.queued = True
                heapq.heappush(self._heap, (oldest, next(self._serial), log))
        if self.used > self.limit:
            self._shrink()

    def released(self, cost: int) -> None:
        """Frames of ``cost`` bytes were forgotten by their log (its cap, or ``clear``)."""
        self.used -= cost

    def closed(self) -> None:
        """A log was emptied for good (its outstation removed): once such logs are half the
        heap, the heap is rebuilt without the empty ones (amortized, a step per removal)."""
        self._stale += 1
        if self._stale > 16 + len(self._heap) // 2:
            self.forget_empty()

    def _shrink(self) -> None:
        heap = self._heap
        while self.used > self.limit and heap:
            when, serial, log = heap[0]
            oldest = log.oldest_time()
            if oldest is None:
                heapq.heappop(heap)
                log.queued = False
            elif oldest != when:
                heapq.heapreplace(heap, (oldest, serial, log))
            else:
                self.used -= log.drop_oldest()
                after = log.oldest_time()
                if after is None:
                    heapq.heappop(heap)
                    log.queued = False
                else:
                    heapq.heapreplace(heap, (after, serial, log))

    def forget_empty(self) -> None:
        """Take the logs that hold nothing any more out of the heap (a removed outstation's
        log would otherwise stay until the budget runs short)."""
        self._stale = 0
        kept = []
        for entry in self._heap:
            if entry[2].oldest_time() is None:
                entry[2].queued = False
            else:
                kept.append(entry)
        if len(kept) != len(self._heap):
            heapq.heapify(kept)
            self._heap = kept
