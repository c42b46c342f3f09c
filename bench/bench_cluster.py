"""A cluster on NATS against opendnp3's own master, same fleet, one run (DESIGN D161).

N opendnp3 outstations (``GRIDWIRE_BENCH_CLUSTER_N``, 10,000 by default) in two yadnp3
processes (a process may hold 20,000 files here: 5,000 outstations need 10,000), a tenth of
them changing an analog every second; a nats-server; two ``gridwire worker``s and a front
(``gridwire console --cluster``); every outstation event-polled (classes 1-3) every 5 s.
Figures over a window of ``GRIDWIRE_BENCH_CLUSTER_WINDOW`` seconds (60): polls done and
missed, CPU per poll, memory per outstation, time to connect all, ``status`` time. Then
the cluster is stopped and opendnp3's master (in two processes) polls the same fleet the
same way for the same window: its CPU per poll beside ours. With
``GRIDWIRE_BENCH_CLUSTER_SINGLE=1`` one ``gridwire console`` (no cluster) polls the same fleet
too (outstations added 200 at a time), for where one process is the better choice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import nats
from nats.js.errors import NoKeysError, NotFoundError
from tests.support.nats import front_port, gridwire_process, nats_server
from tests.support.processes import running

from gridwire.cluster.store import outstation_key

HERE = Path(__file__).parent
INTERVAL = 5.0
_NOT_FAILED = ("complete", "unsolicited", "held", "connected")
TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _fleet(stack: ExitStack, count: int, folder: Path) -> list[Path]:
    files = []
    halves = [count // 2, count - count // 2]
    for n, size in enumerate(halves):
        ports = folder / f"ports{n}.json"
        proc = stack.enter_context(
            running(
                [
                    sys.executable,
                    str(HERE / "cluster_fleet.py"),
                    "outstations",
                    "--base",
                    str(40000 + n * 10000),
                    "--count",
                    str(size),
                    "--ports",
                    str(ports),
                ],
                stdout=subprocess.PIPE,
            )
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "ready" not in line:
            raise SystemExit(f"the fleet did not start: {line!r}")
        files.append(ports)
    return files


async def _put_configs(url: str, ports: list[int]) -> None:
    nc = await nats.connect(url)
    try:
        kv = await nc.jetstream().key_value("gridwire-outstations")
        for start in range(0, len(ports), 500):
            batch = []
            for i in range(start, min(start + 500, len(ports))):
                name = f"o{i}"
                settings = {
                    "name": name,
                    "host": "127.0.0.1",
                    "port": ports[i],
                    "event_interval": INTERVAL,
                }
                batch.append(kv.put(outstation_key(name), json.dumps(settings).encode()))
            await asyncio.gather(*batch)
    finally:
        await nc.close()


def _workers_say(url: str) -> dict[str, dict[str, Any]]:
    """Each live worker's entry: outstations held and connected, exchanges by outcome and
    when it counted them (no load on the workers: they write it every fifth of the lease)."""

    async def ask() -> dict[str, dict[str, Any]]:
        nc = await nats.connect(url)
        try:
            kv = await nc.jetstream().key_value("gridwire-workers")
            said: dict[str, dict[str, Any]] = {}
            try:
                keys = await kv.keys()
            except (NotFoundError, NoKeysError):  # no worker's entry lives now
                return said
            for key in keys:
                with contextlib.suppress(NotFoundError):
                    said[key] = json.loads((await kv.get(key)).value or b"{}")
            return said
        finally:
            await nc.close()

    return asyncio.run(ask())


def _counted_now(url: str, workers: int) -> dict[str, dict[str, Any]]:
    """Each worker's counts made when it is asked (``{"counts": true}`` on the status
    subject, D227): held, exchanges by outcome, ``counted_at`` and how late its loop ran."""

    async def ask() -> dict[str, dict[str, Any]]:
        nc = await nats.connect(url)
        try:
            inbox = nc.new_inbox()
            sub = await nc.subscribe(inbox)
            await nc.publish("gridwire.status", b'{"counts":true}', reply=inbox)
            said: dict[str, dict[str, Any]] = {}
            deadline = time.monotonic() + 30
            while len(said) < workers and time.monotonic() < deadline:
                with contextlib.suppress(nats.errors.TimeoutError):
                    msg = await sub.next_msg(timeout=deadline - time.monotonic())
                    info = json.loads(msg.data).get("worker", {})
                    said[str(info.get("worker"))] = info
            return said
        finally:
            await nc.close()

    return asyncio.run(ask())


def _total(said: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Held, connected and exchanges by outcome, summed over the workers."""
    total: dict[str, int] = {}
    for info in said.values():
        counts = {"held": info.get("held", 0), "connected": info.get("connected", 0)}
        counts.update(info.get("exchanges", {}))
        for name, value in counts.items():
            total[name] = total.get(name, 0) + int(value)
    return total


def _expected(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> float:
    """Polls due between the two counts each worker made (its ``counted_at``s, not when the
    bench read them: a worker counts every scan and writes every renewal, seconds apart)."""
    due = 0.0
    for key, info in after.items():
        first = before.get(key, {})
        span = float(info.get("counted_at", 0)) - float(first.get("counted_at", 0))
        if first.get("counted_at") and info.get("epoch") == first.get("epoch"):
            due += int(info.get("held", 0)) * span / INTERVAL
    return due


def _whole(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> tuple[int, int]:
    """Polls done and due between two counts asked of the workers a whole number of
    intervals apart: each outstation polled on time was polled exactly that many times,
    whatever its phase (D227). A worker whose epoch changed (its lease lapsed) counts from
    when it took its outstations again."""
    done = due = 0
    for key, info in after.items():
        first = before.get(key, {})
        span = float(info.get("counted_at", 0)) - float(first.get("counted_at", 0))
        due += int(info.get("held", 0)) * round(span / INTERVAL)
        complete = int(info.get("exchanges", {}).get("complete", 0))
        if info.get("epoch") == first.get("epoch"):
            complete -= int(first.get("exchanges", {}).get("complete", 0))
        done += complete
    return done, due


def _missed(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> int:
    """Polls due less polls done between two readings of the workers' entries."""
    done = _total(after).get("complete", 0) - _total(before).get("complete", 0)
    return round(_expected(before, after) - done)


def _status(http: httpx.Client, **params: int) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    answer = http.post("/api/status", json=params, timeout=120).json()
    return (time.perf_counter() - started) * 1000, answer.get("result", {})


def _completed(status: dict[str, Any]) -> tuple[int, int]:
    done = failed = 0
    for outstation in status.get("outstations", []):
        counts = outstation.get("counts", {})
        done += counts.get("complete", 0)
        failed += sum(v for k, v in counts.items() if k not in ("complete", "unsolicited"))
    return done, failed


def cluster_phase(count: int, window: float, port_files: list[Path]) -> dict[str, Any]:
    ports = [p for f in port_files for p in json.loads(f.read_text())]
    figures: dict[str, Any] = {}
    with ExitStack() as stack:
        server = stack.enter_context(nats_server())
        common = ["--cluster", server.url, "--log-level", "WARNING"]
        workers = [
            stack.enter_context(
                gridwire_process(["worker", *common, "--name", f"bench{n}", "--capacity", "20000"])
            )
            for n in range(2)
        ]
        port = front_port()
        front = stack.enter_context(
            gridwire_process(["console", *common, "--no-token", "--bind", f"127.0.0.1:{port}"])
        )
        for process in (*workers, front):
            process.wait_for("gridwire ", within=60)
        time.sleep(1.0)
        empty = [_rss_mib(w.proc.pid) for w in workers]
        http = stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}"))
        started = time.monotonic()
        asyncio.run(_put_configs(server.url, ports))
        figures.update(
            _measure(
                http,
                count,
                window,
                started,
                workers,
                front,
                empty,
                lambda: _total(_workers_say(server.url)).get("connected", 0),
                lambda: _workers_say(server.url),
                lambda: _counted_now(server.url, len(workers)),
            )
        )
        figures["lapses"] = [
            sum("lease lapsed" in line or "not renewed" in line for line in w.lines)
            for w in workers
        ]
        for w in workers:  # what the workers warned of (lapses, renewals failed), in brief
            warned = [line for line in w.lines if "WARNING" in line or "lease" in line]
            for line in warned[:6] + (["..."] if len(warned) > 12 else []) + warned[-6:]:
                print(f"   worker {w.proc.pid}: {line[:160]}", flush=True)
    return figures


def _measure(
    http: httpx.Client,
    count: int,
    window: float,
    started: float,
    pollers: list[Any],
    front: Any,
    empty: list[float],
    progress: Callable[[], int],
    tally: Callable[[], dict[str, dict[str, Any]]] | None = None,
    counted_now: Callable[[], dict[str, dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """Wait until every outstation is connected (``progress()`` says how many are), then
    count polls, CPU and memory of the ``pollers`` (processes) over ``window`` seconds, with
    ``status`` every window/6. With ``counted_now`` (the workers' counts made when asked),
    polls are counted over a whole number of intervals (D227)."""
    figures: dict[str, Any] = {}
    connected = 0
    while time.monotonic() - started < 900:
        connected = progress()
        if connected >= count:
            break
        time.sleep(2.0)
    figures["connect_all_s"] = time.monotonic() - started
    figures["connected"] = connected
    time.sleep(2 * INTERVAL)  # startup integrity polls and the first event polls past
    cpu0 = [_cpu(p.proc.pid) for p in pollers]
    front0 = _cpu(front.proc.pid) if front is not None else 0.0
    # Without the workers' own counts, every entry's (a page of 500 counted a twentieth).
    every = {} if tally is not None else {"limit": 100_000}
    _, before = _status(http, **every)
    said0 = tally() if tally is not None else {}
    now0 = counted_now() if counted_now is not None else {}
    t0 = time.monotonic()
    times, unanswered = [], 0
    while time.monotonic() - t0 < window:
        time.sleep(window / 6)
        ms, status = _status(http)
        times.append(ms)
        unanswered = max(unanswered, len(status.get("not_answered", [])))
    _, after = _status(http, **every)
    whole_ms, whole = _status(http, limit=100_000)  # every entry, gathered 500 at a time
    said1 = tally() if tally is not None else {}
    # A whole number of intervals after the first: every outstation polled on time was
    # polled exactly that many times, whatever its phase (D227).
    time.sleep(
        max(0.0, t0 + INTERVAL * math.ceil((time.monotonic() - t0) / INTERVAL) - time.monotonic())
    )
    now1 = counted_now() if counted_now is not None else {}
    told0, told1 = _total(said0), _total(said1)
    edges = _missed(said0, said1)  # D211's count, over the renewals' counts
    elapsed = time.monotonic() - t0
    cpu = sum(_cpu(p.proc.pid) for p in pollers) - sum(cpu0)
    done0, failed0 = _completed(before)
    done1, failed1 = _completed(after)
    if tally is not None:  # the workers' own counts (their status may not come in time)
        done0, done1 = told0.get("complete", 0), told1.get("complete", 0)
        failed0 = sum(v for k, v in told0.items() if k not in _NOT_FAILED)
        failed1 = sum(v for k, v in told1.items() if k not in _NOT_FAILED)
    polls = done1 - done0
    expected = count * elapsed / INTERVAL
    if tally is not None and _expected(said0, said1):
        expected = _expected(said0, said1)
    held = [w.get("held", 0) for w in after.get("workers", [])] or [told1.get("held", connected)]
    rss = [_rss_mib(p.proc.pid) for p in pollers]
    if now0 and now1:
        polls, due = _whole(now0, now1)
        expected = due or expected
    figures.update(
        polls=polls,
        expected=int(expected),
        missed=max(0, round(expected - polls)),
        missed_d211=edges,
        late_ms=[int(w.get("late_max_ms", 0)) for _, w in sorted(now1.items())],
        failed=failed1 - failed0,
        cpu_per_poll_us=cpu / max(polls, 1) * 1e6,
        cpu_share=cpu / elapsed,
        front_cpu_share=(_cpu(front.proc.pid) - front0) / elapsed if front is not None else 0.0,
        kib_per_outstation=(sum(rss) - sum(empty)) * 1024 / max(sum(held), 1),
        held=held,
        status_ms_median=statistics.median(times) if times else 0.0,
        status_ms_max=max(times) if times else 0.0,
        status_unanswered=unanswered,
        status_whole_ms=whole_ms,
        status_whole=len(whole.get("outstations", [])),
    )
    return figures


def single_phase(count: int, window: float, port_files: list[Path]) -> dict[str, Any]:
    """The same fleet polled by one ``gridwire console`` process, no cluster."""
    ports = [p for f in port_files for p in json.loads(f.read_text())]
    with ExitStack() as stack, tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "fleet.json"
        outstations = [
            {"name": f"o{i}", "host": "127.0.0.1", "port": p, "event_interval": INTERVAL}
            for i, p in enumerate(ports)
        ]
        config.write_text(json.dumps({"outstations": [], "log_level": "WARNING"}))
        port = front_port()
        console = stack.enter_context(
            gridwire_process(
                ["console", "--config", str(config), "--no-token", "--bind", f"127.0.0.1:{port}"]
            )
        )
        console.wait_for("gridwire console", within=60)
        time.sleep(1.0)
        empty = [_rss_mib(console.proc.pid)]
        http = stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}"))
        started = time.monotonic()

        async def add_all() -> None:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=600) as c:
                for start in range(0, len(outstations), 200):
                    batch = outstations[start : start + 200]
                    await asyncio.gather(*(c.post("/api/add", json=o) for o in batch))

        asyncio.run(add_all())

        def progress() -> int:
            time.sleep(3.0)  # status of thousands costs the process polling them
            _, status = _status(http)
            return int(status.get("summary", {}).get("connected", 0))  # of all, not a page

        return _measure(http, count, window, started, [console], None, empty, progress)


def opendnp3_phase(window: float, port_files: list[Path]) -> dict[str, Any]:
    with ExitStack() as stack:
        masters = []
        for ports in port_files:
            proc = stack.enter_context(
                running(
                    [
                        sys.executable,
                        str(HERE / "cluster_fleet.py"),
                        "master",
                        "--ports",
                        str(ports),
                        "--interval",
                        str(INTERVAL),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                )
            )
            assert proc.stdout is not None
            proc.stdout.readline()
            masters.append(proc)
        time.sleep(3 * INTERVAL)  # connected, the null unsolicited answered

        def report() -> int:
            total = 0
            for proc in masters:
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write("report\n")
                proc.stdin.flush()
                total += json.loads(proc.stdout.readline()).get("polls", 0)
            return total

        cpu0 = [_cpu(p.pid) for p in masters]
        polls0 = report()
        t0 = time.monotonic()
        time.sleep(window)
        polls = report() - polls0
        elapsed = time.monotonic() - t0
        cpu = sum(_cpu(p.pid) for p in masters) - sum(cpu0)
        rss = sum(_rss_mib(p.pid) for p in masters)
    return {
        "polls": polls,
        "cpu_per_poll_us": cpu / max(polls, 1) * 1e6,
        "cpu_share": cpu / elapsed,
        "rss_mib": rss,
    }


def main() -> None:
    count = int(os.environ.get("GRIDWIRE_BENCH_CLUSTER_N", "10000"))
    window = float(os.environ.get("GRIDWIRE_BENCH_CLUSTER_WINDOW", "60"))
    with ExitStack() as stack, tempfile.TemporaryDirectory() as folder:
        port_files = _fleet(stack, count, Path(folder))
        ours = cluster_phase(count, window, port_files)
        single = None
        if os.environ.get("GRIDWIRE_BENCH_CLUSTER_SINGLE"):
            single = single_phase(count, window, port_files)
        theirs = opendnp3_phase(window, port_files)
    print(f"   {count} opendnp3 outstations, event poll every {INTERVAL:g} s, window {window:g} s")
    print(f"   {'':34}{'gridwire cluster':>20}{'opendnp3 master':>18}")
    rows = [
        ("polls done (expected)", f"{ours['polls']} ({ours['expected']})", str(theirs["polls"])),
        ("missed polls / failed", f"{ours['missed']} / {ours['failed']}", "-"),
        ("due less done, D211's window", str(ours.get("missed_d211", "-")), "-"),
        ("loop late at worst (ms, each)", str(ours.get("late_ms", "-")), "-"),
        (
            "CPU per poll",
            f"{ours['cpu_per_poll_us']:.0f} us",
            f"{theirs['cpu_per_poll_us']:.0f} us",
        ),
        (
            "CPU (cores, workers / front)",
            f"{ours['cpu_share']:.2f} / {ours['front_cpu_share']:.2f}",
            f"{theirs['cpu_share']:.2f}",
        ),
        ("memory per outstation", f"{ours['kib_per_outstation']:.0f} KiB", "-"),
        ("time to connect all", f"{ours['connect_all_s']:.1f} s ({ours['connected']})", "-"),
        (
            "status (median / max)",
            f"{ours['status_ms_median']:.0f} / {ours['status_ms_max']:.0f} ms"
            + (f", {ours['status_unanswered']} late" if ours["status_unanswered"] else ""),
            "-",
        ),
        (
            "status, whole list (entries)",
            f"{ours['status_whole_ms']:.0f} ms ({ours['status_whole']})",
            "-",
        ),
        ("held by each worker", str(ours["held"]), "-"),
        ("lease lapses (each worker)", str(ours.get("lapses", "-")), "-"),
    ]
    print(f"   load (1, 5, 15 min) at the end: {os.getloadavg()}")
    for label, a, b in rows:
        print(f"   {label:34}{a:>20}{b:>18}")
    if single is not None:
        print(
            f"   one gridwire process, same fleet: {single['polls']} polls "
            f"({single['expected']} expected, {single['missed']} missed), CPU per poll "
            f"{single['cpu_per_poll_us']:.0f} us ({single['cpu_share']:.2f} cores), "
            f"{single['kib_per_outstation']:.0f} KiB per outstation, all connected in "
            f"{single['connect_all_s']:.1f} s, status {single['status_ms_median']:.0f} ms"
        )


if __name__ == "__main__":
    main()
