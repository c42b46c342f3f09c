"""The DER procedures against the simulated DER (``gridwire sim --der``, a subprocess):
``der.read`` of a 300-point group and ``der.functions``, through the Python API
(:class:`gridwire.derops.DerMaster`), each call timed from the call to its result (the reads
made, the readings built), and the result written as the service writes it (orjson).

The group: the first 300 points of the demo map the simulated DER serves, in listing order
(the served points of its real groups: binary inputs and outputs, counters, then analog
inputs; runs of consecutive indexes with gaps), given the purpose ``Bench``: one READ of 300
points (the figure printed says how many READs it took). For comparison, the same READ made by ``Master.read`` alone
(its answer the Exchange, as the ``read`` operation gives it). Peak memory is the most Python allocated during one call
(tracemalloc, in a separate call: tracing slows the timed ones). Run with ``make bench`` or
``.venv/bin/python -m bench derops``.

In process, with no wire: the names of a der.read of 2048 points resolved the first time and
again (the service resolves a message twice: checked, then carried out), and the simulated
DER taking a 100-point curve's 205 controls (selector, count, 200 X and Y): the event loop is
held that long when it runs in the console's process (``console --demo``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

from tests.support.net import free_port, wait_listening
from tests.support.processes import running

from gridwire.der.demo import demo_map
from gridwire.der.mapfile import save_map
from gridwire.der.pointmap import PointMap
from gridwire.derops import DerMaster
from gridwire.derops.ranges import ranges_of, request_of
from gridwire.derops.read import read_targets
from gridwire.master import OutstationSettings
from gridwire.operations.encoding import encode
from gridwire.outstation.controls import AnalogCommand
from gridwire.simulator import SimulatedDer
from gridwire.simulator.served import unserved_points

GROUP = "Bench"
GROUP_SIZE = 300
CALLS = 50
WARMUP = 5


def bench_map() -> PointMap:
    """The demo map with the first GROUP_SIZE points the simulated DER serves given the
    purpose ``Bench`` (an unserved index in a range would have the READ refused whole,
    DESIGN D96, and read again range by range)."""
    demo = demo_map()
    unserved = unserved_points(demo)
    served = [p for p in demo.points if (p.kind, p.index) not in unserved]
    chosen = {p.address for p in served[:GROUP_SIZE]}
    points = [
        dataclasses.replace(p, purpose=GROUP) if p.address in chosen else p for p in demo.points
    ]
    return PointMap(points, title="bench", functions=demo.functions, curve_block=demo.curve_block)


async def _timed(call: Callable[[], Awaitable[object]]) -> tuple[list[float], float, object]:
    for _ in range(WARMUP):
        await call()
    times: list[float] = []
    result: object = None
    for _ in range(CALLS):
        started = time.perf_counter()
        result = await call()
        times.append((time.perf_counter() - started) * 1000.0)
    started = time.perf_counter()
    await encode(result)
    encoded = (time.perf_counter() - started) * 1000.0
    return times, encoded, result


async def _peak(call: Callable[[], Awaitable[object]]) -> float:
    tracemalloc.start()
    try:
        await call()
        return tracemalloc.get_traced_memory()[1] / 1024.0
    finally:
        tracemalloc.stop()


def _figures(name: str, times: list[float], encoded: float, peak_kib: float, what: str) -> str:
    ordered = sorted(times)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return (
        f"   {name:<24} median {statistics.median(ordered):6.2f} ms  p90 {p90:6.2f} ms  "
        f"JSON {encoded:5.2f} ms  peak {peak_kib:7.0f} KiB  ({what})"
    )


async def _run(tables: Path, port: int) -> None:
    master = DerMaster(tables=tables)
    try:
        await master.add(
            OutstationSettings(name="der", host="127.0.0.1", port=port, profile="ieee1815.2")
        )
        await master.idle("der")
        der = master.der("der")

        async def read() -> object:
            return await der.read(group=GROUP)

        times, encoded, result = await _timed(read)
        peak = await _peak(read)
        points = result.points  # type: ignore[attr-defined]
        exchanges = result.exchanges  # type: ignore[attr-defined]
        octets = sum(len(bytes.fromhex(e.request)) for e in exchanges)
        good = sum(p.quality != "not_reported" for p in points)
        wire = statistics.median(e.elapsed_ms for e in exchanges)
        what = (
            f"{len(points)} points, {good} reported, {len(exchanges)} READ of {octets} octets "
            f"answered in {wire:.2f} ms"
        )
        print(_figures("der.read (300 points)", times, encoded, peak, what), flush=True)

        # The same READ through Master.read alone: what the DER procedure adds to it.
        request = request_of(ranges_of((p.type, p.index) for p in points))

        async def plain() -> object:
            return await master.read("der", request)

        times, encoded, _ = await _timed(plain)
        peak = await _peak(plain)
        print(_figures("Master.read, same READ", times, encoded, peak, "the Exchange"))

        # The most names a der.read takes (2048): every served input's name, repeated,
        # with a 1 ms ticker measuring the longest the event loop was held meanwhile.
        demo = bench_map()
        unserved = unserved_points(demo)
        served = [
            p.name for p in demo.points if p.kind.is_input and (p.kind, p.index) not in unserved
        ]
        many = (served * (2048 // len(served) + 1))[:2048]
        worst: list[float] = []
        for _ in range(10):
            ticking = asyncio.ensure_future(_ticker(held := [0.0]))
            await asyncio.sleep(0.005)  # the ticker is running before the read starts
            started = time.perf_counter()
            await der.read(names=many)
            took = (time.perf_counter() - started) * 1000.0
            ticking.cancel()
            worst.append(held[0])
        print(
            f"   der.read (2048 names)    {took:6.2f} ms  loop held at most "
            f"{statistics.median(worst):5.2f} ms (median of 10), {max(worst):5.2f} ms (worst)"
            f"  ({len(set(many))} distinct points)",
            flush=True,
        )

        async def functions() -> object:
            return await der.functions()

        times, encoded, listed = await _timed(functions)
        peak = await _peak(functions)
        count = len(listed.functions)  # type: ignore[attr-defined]
        print(_figures("der.functions", times, encoded, peak, f"{count} functions"), flush=True)
    finally:
        await master.close()


async def _ticker(held: list[float]) -> None:
    """Every millisecond: the longest the loop was late for it goes in ``held[0]`` (ms)."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + 0.001
        await asyncio.sleep(0.001)
        held[0] = max(held[0], (loop.time() - due) * 1000.0)


def _best_ms(run: Callable[[], object], repeats: int = 20) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best * 1000.0


def in_process() -> None:
    """Name resolution and the simulated DER's curve window, without the wire."""
    demo = demo_map()
    names = ([p.name for p in demo.points if p.kind.is_input] * 5)[:2048]
    started = time.perf_counter()
    read_targets(demo, names)
    first = (time.perf_counter() - started) * 1000.0
    again = _best_ms(lambda: read_targets(demo, names))
    print(f"   der.read names (2048)    first {first:6.2f} ms  again {again:6.2f} ms")
    block = demo.curve_block
    assert block is not None
    writes = [(block.selector, 4), (block.output(2), 100)]
    writes += [(block.output(5 + n), n) for n in range(200)]

    def curve() -> None:
        der = SimulatedDer()
        for index, value in writes:
            der.control(AnalogCommand(index, value, 1), "direct", 0.0)

    made = _best_ms(SimulatedDer, 5)
    print(f"   sim: 100-point curve      {_best_ms(curve, 5) - made:6.2f} ms for 202 controls")


def main() -> None:
    in_process()
    with tempfile.TemporaryDirectory() as folder:
        tables = Path(folder) / "bench-map.json"
        save_map(bench_map(), tables)
        port = free_port()
        command = [sys.executable, "-m", "gridwire", "sim", "--der", "--tables", str(tables)]
        command += ["--bind", f"127.0.0.1:{port}"]
        with running(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            wait_listening(port, timeout=60)
            asyncio.run(_run(tables, port))
