"""Integrity poll latency of gridwire's master against yadnp3's outstation serving 9000
points (1000 of each of its nine types: an 18-fragment response), next to yadnp3's own
master polling the same outstation in the same run.

Each figure is over 200 polls made one after another, timed from the call to the end of the
exchange (the last fragment decoded and stored). Run with ``make bench`` or
``.venv/bin/python -m bench master``.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from tests.support.peers import yadnp3_bench, yadnp3_outstation

from gridwire.master import Master, OutstationSettings

POINTS_PER_TYPE = 1000
POLLS = 200
WARMUP = 10


async def _gridwire(port: int, polls: int) -> tuple[list[float], int, int]:
    master = Master()
    try:
        await master.add(OutstationSettings(name="bench", host="127.0.0.1", port=port))
        await master.idle("bench")
        for _ in range(WARMUP):
            await master.scan("bench", "integrity")
        times: list[float] = []
        fragments = objects = 0
        for _ in range(polls):
            started = time.perf_counter()
            exchange = await master.scan("bench", "integrity")
            times.append((time.perf_counter() - started) * 1000.0)
            if exchange.outcome != "complete" or exchange.undecoded:
                raise RuntimeError(f"poll ended {exchange.outcome}: {exchange.undecoded[:3]}")
            fragments, objects = exchange.fragments, exchange.object_count
        return times, fragments, objects
    finally:
        await master.close()


def _figures(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return (
        f"median {statistics.median(ordered):7.2f} ms  p90 {p90:7.2f} ms  min {ordered[0]:7.2f} ms"
    )


def main() -> None:
    with yadnp3_outstation(points=POINTS_PER_TYPE) as outstation:
        theirs = yadnp3_bench(outstation.port, POLLS)
        if theirs.get("event") != "bench":
            print(f"   yadnp3 master failed: {theirs}")
            return
        times, fragments, objects = asyncio.run(_gridwire(outstation.port, POLLS))
    ours = statistics.median(times)
    print(
        f"   integrity poll, {objects} objects in {fragments} fragments, {POLLS} polls each",
        flush=True,
    )
    print(f"   gridwire master: {_figures(times)}")
    print(
        f"   yadnp3 master:   median {theirs['median_ms']:7.2f} ms  "
        f"p90 {theirs['p90_ms']:7.2f} ms  min {theirs['min_ms']:7.2f} ms"
    )
    print(f"   ratio (median gridwire / median yadnp3): {ours / theirs['median_ms']:.2f}")
