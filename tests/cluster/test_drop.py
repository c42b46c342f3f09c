"""A worker whose lease lapsed drops every outstation it holds (D154) in time linear in
their number (D210): it found each one's key by searching every holding, which at 5,000
held the worker's loop, and every poll on it, for 45 s and more in the cluster bench."""

from __future__ import annotations

import time
from typing import Any

from gridwire.cluster.holdings import Held
from gridwire.cluster.store import Buckets, Subjects, outstation_key
from gridwire.cluster.worker import Worker
from gridwire.master import Master

HELD = 20_000


async def test_dropping_every_outstation_is_linear_and_drops_only_those() -> None:
    master = Master()
    none: Any = None
    worker = Worker("w", master, Buckets(none, none, none, none, 10.0), Subjects("g"), HELD)
    removed: list[str] = []

    async def remove(name: str) -> None:
        removed.append(name)

    worker._remove = remove  # type: ignore[method-assign]
    for n in range(HELD):
        worker.holdings.held[outstation_key(f"o{n}")] = Held(f"o{n}", n + 1, 1)
    worker.drop("o7")
    assert outstation_key("o7") not in worker.holdings.held
    assert len(worker.holdings) == HELD - 1
    started = time.perf_counter()
    worker.drop_all()
    took = time.perf_counter() - started
    for task in list(worker._tasks):
        await task
    assert not worker.holdings.held
    assert sorted(removed) == sorted(f"o{n}" for n in range(HELD))
    # Linear: some 50 ms here; the search took 20,000 x 20,000 steps (minutes).
    assert took < 5.0, f"dropping {HELD} took {took:.1f} s"
    await master.close()
