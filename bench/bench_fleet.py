"""One process, many outstations: N yadnp3 outstations in one C++ process, event-polled
(classes 1, 2, 3) once a second by one ``gridwire serve`` and, in the same run, by N of
opendnp3's own masters in one process (bench/yadnp3_fleet.py).

Figures per N: time until ``serve`` listens with every configured outstation added (it adds
them before it listens), memory per outstation (resident set against the same serve with no
outstation), polls missed in a window (polls expected less exchanges completed, from
``status`` counts), CPU per poll of each master (process CPU time over the window divided by
the polls it completed), ``status`` time, and the p99 of a probe (an event scan of one
outstation through the line service, ten a second) without and with ``status`` once a second.
Then the 9000-point integrity scan: gridwire's answer through the line service to its last
JSON octet, against yadnp3's master completing the same poll.

``GRIDWIRE_FLEET`` (comma-separated N, default 1000,3000,5000,10000) picks the sizes; empty,
only the 9000-point scan runs (``GRIDWIRE_FLEET= python -m bench fleet``), as many times as
``GRIDWIRE_SCAN_RUNS`` says (default 1). ``GRIDWIRE_FLEET_INTERVAL`` (seconds, default 1) is
the event poll interval of both masters (at 10,000 on two cores, 5 s as the cluster bench
polls); ``python -m bench fleet``.
"""

from __future__ import annotations

import json
import math
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.net import free_port, wait_listening
from tests.support.peers import yadnp3_bench, yadnp3_outstation
from tests.support.processes import stop

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
GRIDWIRE = str(Path(PYTHON).with_name("gridwire"))
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
WARM = 8.0
WINDOW = 10.0
LISTEN_WITHIN = float(os.environ.get("GRIDWIRE_FLEET_LISTEN", "240"))
# The outstations listen on a loopback address of their own, out of the way of the ports
# tests on 127.0.0.1 pick from below the ephemeral range.
FLEET_HOST = "127.0.0.2"
INTERVAL = float(os.environ.get("GRIDWIRE_FLEET_INTERVAL", "1"))
SIZES = tuple(
    int(n) for n in os.environ.get("GRIDWIRE_FLEET", "1000,3000,5000,10000").split(",") if n
)
SCAN_RUNS = int(os.environ.get("GRIDWIRE_SCAN_RUNS", "1"))


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _rss(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _port_base(count: int) -> int:
    """``count`` consecutive ports below the ephemeral range, all free now, never 20000."""
    for _ in range(50):
        base = random.randrange(20001, 32768 - count)
        ok = True
        for port in range(base, base + count):
            with socket.socket() as s:
                try:
                    s.bind((FLEET_HOST, port))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free port range")


@contextmanager
def _fleet(role: str, base: int, count: int, *extra: str) -> Iterator[subprocess.Popen[str]]:
    cmd = [PYTHON, str(HERE / "yadnp3_fleet.py"), role, "--host", FLEET_HOST]
    cmd += ["--base", str(base), "--count", str(count)]
    proc = subprocess.Popen(
        [*cmd, *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if '"ready"' not in line:
            raise RuntimeError(f"fleet {role} did not start: {line!r}")
        yield proc
    finally:
        stop(proc)


class _Line:
    """A line-service client: one request at a time."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rb")

    def call(self, op: str, outstation: str | None = None, **params: Any) -> tuple[float, bytes]:
        message: dict[str, Any] = {"op": op, "params": params}
        if outstation is not None:
            message["outstation"] = outstation
        started = time.perf_counter()
        self.sock.sendall(json.dumps(message).encode() + b"\n")
        line = self.file.readline()
        return (time.perf_counter() - started) * 1000.0, line

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def _serve(config: dict[str, Any]) -> tuple[subprocess.Popen[str], int, Path]:
    port = free_port()
    config = {**config, "serve": {"bind": f"127.0.0.1:{port}"}, "log_level": "WARNING"}
    path = Path(tempfile.mkstemp(suffix=".json")[1])
    path.write_text(json.dumps(config))
    proc = subprocess.Popen(
        [GRIDWIRE, "serve", "--config", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    return proc, port, path


def _baseline_rss() -> int:
    proc, port, path = _serve({"outstations": []})
    try:
        wait_listening(port, 60)
        time.sleep(1.0)
        return _rss(proc.pid)
    finally:
        stop(proc)
        path.unlink()


def _completed(line: _Line, count: int) -> tuple[dict[str, int], float]:
    """Each outstation's completed exchanges, and how long ``status`` took to answer."""
    ms, answer = line.call("status", limit=count)
    status = json.loads(answer)["result"]
    return {o["name"]: o.get("counts", {}).get("complete", 0) for o in status["outstations"]}, ms


def _short(before: dict[str, int], after: dict[str, int], span: float) -> int:
    """Polls surely missed: each outstation polled on time completes at least
    floor(span / INTERVAL) exchanges in ``span`` seconds, whatever its phase, so an outstation
    with fewer missed the difference. Unlike due-less-done over the fleet, this does not swing
    with the outstations' phases at the window's edges."""
    least = math.floor(span / INTERVAL)
    return sum(max(0, least - (after.get(name, 0) - done)) for name, done in before.items())


def _probe(port: int, count: int, until: float, times: list[float]) -> None:
    line = _Line(port)
    try:
        while time.monotonic() < until:
            ms, _ = line.call("scan", f"o{random.randrange(count)}", kind="events")
            times.append(ms)
            time.sleep(0.1)
    finally:
        line.close()


def _window(port: int, count: int, with_status: bool) -> dict[str, Any]:
    probes: list[float] = []
    until = time.monotonic() + WINDOW
    prober = threading.Thread(target=_probe, args=(port, count, until, probes))
    prober.start()
    status_ms: list[float] = []
    summary_ms: list[float] = []
    line = _Line(port)
    try:
        while time.monotonic() < until:
            if with_status:
                status_ms.append(line.call("status")[0])
                summary_ms.append(line.call("status", limit=1)[0])
            time.sleep(1.0)
    finally:
        line.close()
    prober.join()
    ordered = sorted(probes)
    return {
        "p99": ordered[int(len(ordered) * 0.99) - 1] if ordered else float("nan"),
        "p50": statistics.median(ordered) if ordered else float("nan"),
        "status_ms": statistics.median(status_ms) if status_ms else None,
        "status_max_ms": max(status_ms) if status_ms else None,
        "summary_ms": statistics.median(summary_ms) if summary_ms else None,
    }


def _gridwire(base: int, count: int, baseline: int) -> dict[str, Any]:
    outstations = [
        {"name": f"o{i}", "host": FLEET_HOST, "port": base + i, "event_interval": INTERVAL}
        for i in range(count)
    ]
    started = time.monotonic()
    proc, port, path = _serve({"outstations": outstations})
    try:
        try:
            wait_listening(port, LISTEN_WITHIN)
        except TimeoutError:
            return {"connect_s": None}
        connect_s = time.monotonic() - started
        time.sleep(2.0)  # the startup tasks
        rss_start = _rss(proc.pid)
        time.sleep(WARM - 2.0)
        line = _Line(port)
        # CPU and time taken as each count is asked for, so both ends wait alike.
        cpu0, t0 = _cpu_seconds(proc.pid), time.monotonic()
        done0, status_ms = _completed(line, count)
        quiet = _window(port, count, with_status=False)
        cpu1, t1 = _cpu_seconds(proc.pid), time.monotonic()
        done1, last_ms = _completed(line, count)
        busy = _window(port, count, with_status=True)
        rss = _rss(proc.pid)
        line.close()
    finally:
        stop(proc)
        path.unlink()
    polls = sum(done1.values()) - sum(done0.values())
    # Each count is made while its answer is built: the span every outstation's two counts
    # surely cover is the window less both answers' times.
    span = t1 - t0 - (status_ms + last_ms) / 1000.0
    return {
        "connect_s": connect_s,
        "missed": max(0, round(count * (t1 - t0) / INTERVAL) - polls),
        "short": _short(done0, done1, span),
        "cpu_pct": 100 * (cpu1 - cpu0) / (t1 - t0),
        "us_per_poll": 1e6 * (cpu1 - cpu0) / max(polls, 1),
        "kib_per": (rss - baseline) / count / 1024,
        "kib_per_start": (rss_start - baseline) / count / 1024,
        "status_first_ms": status_ms,
        "quiet": quiet,
        "busy": busy,
    }


def _opendnp3(base: int, count: int) -> dict[str, Any]:
    with _fleet("masters", base, count, "--interval", f"{INTERVAL:g}") as proc:
        assert proc.stdout is not None
        lines: list[dict[str, Any]] = []
        out = proc.stdout

        def read() -> None:
            lines.extend(json.loads(text) for text in out)

        threading.Thread(target=read, daemon=True).start()
        time.sleep(WARM)
        first, cpu0 = lines[-1], _cpu_seconds(proc.pid)
        time.sleep(WINDOW)
        last, cpu1 = lines[-1], _cpu_seconds(proc.pid)
    polls = last["count"] - first["count"]
    seconds = last["time"] - first["time"]
    return {
        "missed": max(0, round(count * seconds / INTERVAL) - polls),
        "cpu_pct": 100 * (cpu1 - cpu0) / WINDOW,
        "us_per_poll": 1e6 * (cpu1 - cpu0) / max(polls * WINDOW / seconds, 1),
    }


def _case(count: int, baseline: int) -> None:
    base = _port_base(count)
    with _fleet("outstations", base, count):
        ours = _gridwire(base, count, baseline)
        theirs = _opendnp3(base, count)
    if ours["connect_s"] is None:
        print(f"   N={count}: serve not listening within {LISTEN_WITHIN:g} s", flush=True)
        print(f"     opendnp3: {theirs['us_per_poll']:.0f} us per poll", flush=True)
        return
    q, b = ours["quiet"], ours["busy"]
    print(
        f"   N={count}, event poll every {INTERVAL:g} s, load {_load()}: serve listening with all added in {ours['connect_s']:.1f} s, "
        f"{ours['kib_per_start']:.1f} KiB per outstation once connected, "
        f"{ours['kib_per']:.1f} KiB after {WARM + 2 * WINDOW:g} s of polls (traces filling)",
        flush=True,
    )
    print(
        f"     missed polls in {WINDOW:g} s: gridwire {ours['missed']} due less done "
        f"({ours['short']} surely missed, outstation by outstation), opendnp3 "
        f"{theirs['missed']}; CPU per poll: gridwire {ours['us_per_poll']:.0f} us "
        f"({ours['cpu_pct']:.0f}% of a core), opendnp3 {theirs['us_per_poll']:.0f} us "
        f"({theirs['cpu_pct']:.0f}%), ratio {ours['us_per_poll'] / theirs['us_per_poll']:.2f}",
        flush=True,
    )
    print(
        f"     status (a page of 500) {b['status_ms']:.1f} ms (max {b['status_max_ms']:.1f}), "
        f"summary alone (limit 1) {b['summary_ms']:.1f} ms, all {count} in one answer "
        f"{ours['status_first_ms']:.1f} ms; probe "
        f"scan p50/p99 {q['p50']:.1f}/{q['p99']:.1f} ms without status, "
        f"{b['p50']:.1f}/{b['p99']:.1f} ms with status once a second",
        flush=True,
    )


def _scan_9000() -> None:
    with yadnp3_outstation(points=1000) as outstation:
        theirs = yadnp3_bench(outstation.port, 40)
        config = {"outstations": [{"name": "big", "host": "127.0.0.1", "port": outstation.port}]}
        proc, port, path = _serve(config)
        try:
            wait_listening(port, 60)
            line = _Line(port)
            line.call("idle", "big")
            times = []
            size = 0
            for i in range(45):
                if i == 5:
                    cpu = _cpu_seconds(proc.pid)
                ms, answer = line.call("scan", "big", kind="integrity")
                size = len(answer)
                if i >= 5:
                    times.append(ms)
            cpu = (_cpu_seconds(proc.pid) - cpu) / len(times) * 1000.0
            line.close()
        finally:
            stop(proc)
            path.unlink()
    ours = statistics.median(times)
    print(
        f"   9000-point integrity scan to the last JSON octet ({size / 1e6:.2f} MB): gridwire "
        f"median {ours:.1f} ms, opendnp3's master {theirs['median_ms']:.1f} ms, "
        f"ratio {ours / theirs['median_ms']:.2f}; serve's CPU {cpu:.1f} ms a scan",
        flush=True,
    )


def main() -> None:
    if SIZES:
        baseline = _baseline_rss()
        print(f"   serve with no outstation: {baseline / 2**20:.1f} MiB resident", flush=True)
        for count in SIZES:
            _case(count, baseline)
    for _ in range(SCAN_RUNS):
        _scan_9000()


if __name__ == "__main__":
    main()
