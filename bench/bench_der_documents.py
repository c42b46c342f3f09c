"""der.document of the largest shared Device Profile, and der.compare of the simulated DER:
time and peak memory.

- der.document: reading (the hardened reader) and laying out
  ``../shared/data/device-profiles/opendnp3-2.10.00.xml`` (skipped with a note when absent),
  and rendering the printable page of it; then the same of the simulated DER's own document
  (692 points, the larger of the two).
- der.compare: ``gridwire sim --der --write-device-profile FILE`` runs as a subprocess, so
  what is measured is the master's side only: reading the document, the class 0 read, the
  output status read, and the comparison, over loopback TCP.

Peak memory is tracemalloc's: the Python heap this process allocated during one run above
what it held before (lxml's and expat's own C buffers are not counted).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.simulator import der_sim_with_profile

from gridwire.derops.compare import der_compare
from gridwire.devprofile.html import render_html
from gridwire.devprofile.layout import lay_out
from gridwire.devprofile.reader import read_document
from gridwire.master import Master, OutstationSettings
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile

LARGEST = Path(__file__).resolve().parents[2] / "shared/data/device-profiles/opendnp3-2.10.00.xml"
RUNS = 20


def _peak(work: Callable[[], Any]) -> float:
    """MiB the Python heap grew to at most while ``work`` ran."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        work()
        return (tracemalloc.get_traced_memory()[1] - base) / (1 << 20)
    finally:
        tracemalloc.stop()


def _report(what: str, times: list[float], peak: float) -> None:
    print(
        f"   {what}: median {statistics.median(times):7.1f} ms, min {min(times):7.1f} ms, "
        f"peak {peak:5.1f} MiB",
        flush=True,
    )


def _timed(work: Callable[[], Any], runs: int = RUNS) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return times


def _document(name: str, data: bytes) -> None:
    size = len(data) / 1024
    _report(
        f"der.document {name} ({size:.0f} KiB)",
        _timed(lambda: lay_out(read_document(data))),
        _peak(lambda: lay_out(read_document(data))),
    )
    layout = lay_out(read_document(data))
    page = _timed(lambda: render_html(layout))
    _report("  its printable page", page, _peak(lambda: render_html(layout)))


async def _compare_runs(port: int, path: Path) -> tuple[list[float], float, int]:
    master = Master()
    await master.add(OutstationSettings(name="der", host="127.0.0.1", port=port))
    try:
        times = []
        declared = 0
        for _ in range(RUNS):
            started = time.perf_counter()
            result = await der_compare(master, "der", path)
            times.append((time.perf_counter() - started) * 1000)
            assert not result.absent and not result.undeclared, "the DER differs from itself"
            declared = result.declared
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        await der_compare(master, "der", path)
        peak = (tracemalloc.get_traced_memory()[1] - base) / (1 << 20)
        tracemalloc.stop()
        return times, peak, declared
    finally:
        await master.close()


def _compare() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "der.xml"
        with der_sim_with_profile(path) as (port, _):
            times, peak, declared = asyncio.run(_compare_runs(port, path))
    _report(f"der.compare of the simulated DER ({declared} points, 2 reads)", times, peak)


def main() -> None:
    if LARGEST.is_file():
        _document(LARGEST.name, LARGEST.read_bytes())
    else:
        print(f"   der.document: {LARGEST} is absent; skipped", flush=True)
    _document("of the simulated DER", der_device_profile(SimulatedDer(), port=20001))
    _compare()
