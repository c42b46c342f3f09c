"""Process-wide settings of gridwire's long-running commands (console, serve, sep2).

The library never changes the garbage collector: it is process-wide, and a program embedding
gridwire owns it. The commands that run for days do, once their start-up is done (serve and
console once the configured outstations are added; a worker again each time the outstations
it took are connected, :func:`gridwire.service.cluster.run_worker`, D225).
"""

from __future__ import annotations

import gc

YOUNG_GENERATION_THRESHOLD = 10_000
"""Allocations (less deallocations) between collections of the youngest generation (CPython's
default is 700).

A 9000-point integrity poll allocates tens of thousands of objects that die together when its
answer has been sent; at the default threshold the collector walked them about 60 times a poll
and a full collection (about 30 ms) came every seventh poll. A collection walks what the
youngest generation holds, so the threshold is also the longest it holds the loop: 50,000
gave a `status` p99 of 43 ms under the fuzz suite's crowd, 10,000 gives 12 ms (700: 17 ms),
and the best poll figures of the four thresholds measured (DESIGN D60)."""


def settle_heap() -> None:
    """Freeze what start-up allocated (imports, tables, settings) so no collection walks it
    again, and collect the youngest generation less often. Measured on a 9000-point poll
    against yadnp3 (200 polls): p90 26.7 ms at CPython's default -> 18.8 ms, p99 39.1 -> 22.4."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD, 20, 20)
