"""Process-wide settings of gridwire's long-running commands (console, serve).

The library never changes the garbage collector: it is process-wide, and a program embedding
gridwire owns it. The commands that run for days do, once their start-up is done.
"""

from __future__ import annotations

import gc

YOUNG_GENERATION_THRESHOLD = 50_000
"""Allocations between collections of the youngest generation (CPython's default is 700).

A 9000-point integrity poll allocates tens of thousands of objects that die together when its
answer has been sent; at the default threshold the collector walked them about 60 times a poll
and a full collection (about 30 ms) came every seventh poll."""


def settle_heap() -> None:
    """Freeze what start-up allocated (imports, tables, settings) so no collection walks it
    again, and collect the youngest generation less often. Measured on a 9000-point poll
    against yadnp3: p90 38-40 ms -> 18-23 ms, median 19-22 -> 15-19 ms."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD, 20, 20)
