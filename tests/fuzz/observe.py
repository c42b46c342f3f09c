"""What a fuzz run watches besides the answers: another client's ``status`` latency (a
process of its own, :mod:`tests.fuzz.watch`), the service's resident memory (``VmRSS``
from ``/proc/PID/status``), and its log (no traceback, no flood).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Latencies:
    """The watcher's answer times (seconds) and what went wrong for it."""

    kind: str
    latencies: list[float]
    started: list[float]
    waits: list[float]  # of each, how long the service waited for a core (0 unknown)
    problems: list[str]

    @property
    def own(self) -> list[float]:
        """Each latency less the service's wait for a core meanwhile: the service's own."""
        return [t - w for t, w in zip(self.latencies, self.waits, strict=True)]

    def slow(self, bound: float) -> list[tuple[float, float, float]]:
        """(start, latency, wait) of each answer whose own time was over ``bound``."""
        return [
            (s, t, w)
            for s, t, w in zip(self.started, self.latencies, self.waits, strict=True)
            if t - w > bound
        ]

    def percentile(self, p: float, values: list[float] | None = None) -> float:
        ordered = sorted(self.latencies if values is None else values)
        if not ordered:
            return float("inf")
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def summary(self) -> dict[str, Any]:
        def ms(values: list[float]) -> dict[str, float]:
            return {f"p{p}": round(self.percentile(p, values) * 1000, 2) for p in (50, 90, 99, 100)}

        return {
            "kind": self.kind,
            "count": len(self.latencies),
            "ms": ms(self.latencies),
            "own_ms": ms(self.own),
            "waited_ms": round(sum(self.waits) * 1000, 1),
            "problems": self.problems[:5],
        }


class Watcher:
    """``python -m tests.fuzz.watch KIND 127.0.0.1 PORT``, started and ready (it has had
    one answer) when constructed; :meth:`finish` stops it and gives its latencies."""

    def __init__(
        self, kind: str, port: int, every: float = 0.05, label: str = "", pid: int | None = None
    ) -> None:
        self.kind = label or kind
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.watch", kind, "127.0.0.1", str(port),
             "--every", str(every), *(["--pid", str(pid)] if pid else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
            start_new_session=True,
        )  # fmt: skip
        ready: list[str] = []
        reader = threading.Thread(target=lambda: ready.append(self._line()), daemon=True)
        reader.start()
        reader.join(30)
        if ready != ["ready"]:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the {self.kind} watcher did not start: {ready}")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def finish(self) -> Latencies:
        try:
            out, _ = self.proc.communicate(input="", timeout=30)  # its input ends: it stops
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        data = json.loads(out.strip().splitlines()[-1])
        return Latencies(
            self.kind, data["latencies"], data["started"], data["waits"], data["problems"]
        )


class Control:
    """:mod:`tests.fuzz.control` running, and a :class:`Watcher` on it."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.control"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
            start_new_session=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        port = int(self.proc.stdout.readline())
        self.watcher = Watcher("line", port, label="control", pid=self.proc.pid)

    def finish(self) -> Latencies:
        try:
            return self.watcher.finish()
        finally:
            try:
                self.proc.communicate(input="", timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def cpu_seconds(pid: int) -> float:
    """User and system time the process has had (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    """The process's resident memory (KiB), as /proc/PID/status gives it."""
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    assert match, text
    return int(match.group(1))


@dataclass
class Memory:
    """VmRSS of ``pid`` sampled every ``every`` seconds while :meth:`sample` runs."""

    pid: int
    every: float = 0.1
    before: int = 0
    peak: int = 0
    after: int = 0
    samples: list[int] = field(default_factory=list)
    cpu: float = 0.0  # share of one core the process took while sampled
    _started: tuple[float, float] = (0.0, 0.0)

    async def sample(self, stop: asyncio.Event) -> None:
        self._started = (time.monotonic(), cpu_seconds(self.pid))
        while not stop.is_set():
            with contextlib.suppress(OSError):
                self.samples.append(rss_kib(self.pid))
                self.peak = max(self.peak, self.samples[-1])
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.every):
                    await stop.wait()
        with contextlib.suppress(OSError):
            wall, cpu = self._started
            self.cpu = (cpu_seconds(self.pid) - cpu) / max(1e-9, time.monotonic() - wall)

    def summary(self) -> dict[str, float]:
        return {
            "before_kib": self.before,
            "peak_kib": self.peak,
            "after_kib": self.after,
            "growth_kib": self.after - self.before,
            "cpu_share": round(self.cpu, 2),
        }


_STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ ")
_VARYING = re.compile(r"\d+(\.\d+)?|'[^']*'|\"[^\"]*\"|\([^)]*\)|\{.*\}|\[.*\]")


def condition(line: str) -> str:
    """A log line with its time and everything that varies (numbers, quoted text, what is
    in brackets) taken out: lines about the same condition give the same text."""
    return _VARYING.sub("_", _STAMP.sub("", line))[:160]


@dataclass
class LogReport:
    lines: int
    tracebacks: list[str]
    by_condition: Counter[str]

    def summary(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "tracebacks": len(self.tracebacks),
            "conditions": dict(self.by_condition.most_common(12)),
        }


def read_log(path: Path, start: int = 0) -> LogReport:
    """The log written from offset ``start`` on."""
    with path.open("rb") as f:
        f.seek(start)
        text = f.read().decode("utf-8", "replace")
    lines = text.splitlines()
    tracebacks = [line for line in lines if "Traceback" in line or "Exception in" in line]
    return LogReport(len(lines), tracebacks, Counter(condition(line) for line in lines))
