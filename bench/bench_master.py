"""Integrity poll latency of gridwire's master against yadnp3's outstation serving 9000
points (1000 of each of its nine types: an 18-fragment response), next to yadnp3's own
master polling the same outstation in the same run.

Each figure is over 200 polls made one after another, timed from the call to the end of the
exchange (the last fragment decoded and stored). Then the time to confirm, over 40 more polls
of a master made for it: for each fragment, from the session's receive path taking the
octets that complete it to its CONFIRM handed to the connection (the outstation builds its
next fragment only then, so this time is paid once per fragment). Run with ``make bench`` or
``.venv/bin/python -m bench master``.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.peers import yadnp3_bench, yadnp3_outstation

from gridwire.channels.links import PhysicalLink
from gridwire.master import Master, OutstationSettings
from gridwire.master.session import Session
from gridwire.process.runtime import settle_heap

DEFAULT_THRESHOLDS = gc.get_threshold()

POINTS_PER_TYPE = 1000
POLLS = 200
CONFIRM_POLLS = 40
WARMUP = 10


async def _poll(master: Master) -> tuple[float, int, int]:
    """One timed poll. The exchange dies on return, as it does in the service once its answer
    is sent: holding it into the next poll would keep 9000 objects alive twice as long."""
    started = time.perf_counter()
    exchange = await master.scan("bench", "integrity")
    elapsed = (time.perf_counter() - started) * 1000.0
    if exchange.outcome != "complete" or exchange.undecoded:
        raise RuntimeError(f"poll ended {exchange.outcome}: {exchange.undecoded[:3]}")
    return elapsed, exchange.fragments, exchange.object_count


async def _gridwire(port: int, polls: int, settle: bool) -> tuple[list[float], int, int]:
    master = Master()
    try:
        await master.add(OutstationSettings(name="bench", host="127.0.0.1", port=port))
        await master.idle("bench")
        for _ in range(WARMUP):
            await _poll(master)
        if settle:
            settle_heap()  # what gridwire console and serve do once started
        times: list[float] = []
        fragments = objects = 0
        for _ in range(polls):
            elapsed, fragments, objects = await _poll(master)
            times.append(elapsed)
        return times, fragments, objects
    finally:
        await master.close()
        if settle:
            gc.unfreeze()
            gc.set_threshold(*DEFAULT_THRESHOLDS)


@contextmanager
def _confirm_timer(times: list[float]) -> Iterator[None]:
    """While open, every write made within a session's receive path appends the time since
    that path took its octets (sessions made while it is open; the wrappers cost ~1 us)."""
    on_data, write = Session._on_data, PhysicalLink.write
    entered: list[float] = []

    def timed_on_data(self: Session, data: bytes) -> None:
        entered.append(time.perf_counter())
        try:
            on_data(self, data)
        finally:
            entered.clear()

    def timed_write(self: PhysicalLink, data: bytes) -> None:
        if entered:
            times.append(time.perf_counter() - entered[0])
            entered.clear()  # the first write only: the CONFIRM
        write(self, data)

    Session._on_data = timed_on_data  # type: ignore[method-assign]
    PhysicalLink.write = timed_write  # type: ignore[method-assign]
    try:
        yield
    finally:
        Session._on_data = on_data  # type: ignore[method-assign]
        PhysicalLink.write = write  # type: ignore[method-assign]


async def _time_to_confirm(port: int, polls: int) -> list[float]:
    times: list[float] = []
    with _confirm_timer(times):
        await _gridwire(port, polls, settle=True)
    return times


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
        embedded = asyncio.run(_gridwire(outstation.port, POLLS, settle=False))
        service = asyncio.run(_gridwire(outstation.port, POLLS, settle=True))
        confirms = sorted(asyncio.run(_time_to_confirm(outstation.port, CONFIRM_POLLS)))
    _, fragments, objects = service
    print(
        f"   integrity poll, {objects} objects in {fragments} fragments, {POLLS} polls each",
        flush=True,
    )
    print(f"   gridwire master, default gc:        {_figures(embedded[0])}")
    print(f"   gridwire master, as console/serve:  {_figures(service[0])}")
    print(
        f"   yadnp3 master:                      median {theirs['median_ms']:7.2f} ms  "
        f"p90 {theirs['p90_ms']:7.2f} ms  min {theirs['min_ms']:7.2f} ms"
    )
    for label, (times, _, _) in (("default gc", embedded), ("console/serve", service)):
        ratio = statistics.median(times) / theirs["median_ms"]
        print(f"   ratio (median gridwire / median yadnp3), {label}: {ratio:.2f}")
    p10, p50, p90 = (confirms[int(len(confirms) * q)] * 1e6 for q in (0.1, 0.5, 0.9))
    print(
        f"   time to confirm, {len(confirms) / (CONFIRM_POLLS + WARMUP):.0f} a poll: "
        f"p10 {p10:.0f} us  median {p50:.0f} us  p90 {p90:.0f} us"
    )
