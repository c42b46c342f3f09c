"""One fuzz run against one running service, and what it must show:

- the service's process is alive at the end and answers a polite request;
- no problem in the answers (:mod:`tests.fuzz.checks`: no 5xx, no answer missing, every
  answer an envelope with the right id);
- another client's ``status`` (:mod:`tests.fuzz.watch`) was answered every time, each
  within :data:`STATUS_WITHIN`;
- the service's resident memory grew by at most :data:`GROWTH_KIB` once the crowd left;
- its log holds no traceback, no warning or error more often than once a minute (the
  services throttle each condition so), and no more lines than the acts explain.

The figures (latency percentiles, memory, counts by act and by answer) are printed as one
JSON line (shown by ``pytest -s`` and on failure) and, when ``GRIDWIRE_FUZZ_REPORT`` names
a file, appended to it.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.fuzz.observe import (
    Control,
    Latencies,
    LogReport,
    Memory,
    Watcher,
    read_log,
    rss_kib,
)
from tests.fuzz.swarm import Act, Budget, Swarm, Tally
from tests.fuzz.targets import Target

STATUS_WITHIN = 0.1
"""Seconds: the issue's bound on another client's ``status`` while the crowd is at work."""
GROWTH_KIB = 64 << 10
"""Resident memory a run may leave behind once its clients are gone (KiB)."""
LINES_PER_ACT = 3
"""Log lines an act may cause: a command is two (the master's and the service's), a client
that leaves one; anything more is a flood."""
LOG_EVERY = 60.0  # gridwire.net.connection_limits.LOG_EVERY: one line a minute per condition
LOUD = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b")
SETTLE = 1.0  # seconds between the crowd's end and the memory read after


@dataclass
class Report:
    name: str
    budget: Budget
    tally: Tally
    latencies: list[Latencies]
    control: Latencies
    memory: Memory
    log: LogReport
    alive: bool
    problems: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "seconds": self.budget.seconds,
            "clients": self.budget.clients,
            **self.tally.summary(),
            "status": [watch.summary() for watch in self.latencies],
            "control": self.control.summary(),
            "memory": self.memory.summary(),
            "log": self.log.summary(),
        }

    def judge(self) -> None:
        problems = self.problems
        if not self.alive:
            problems.append("the service's process ended")
        problems += self.tally.problems
        for watch in self.latencies:
            problems += [f"{watch.kind} status: {p}" for p in watch.problems]
            slow = watch.slow(STATUS_WITHIN)
            if slow:
                worst = max(t - w for _, t, w in slow)
                problems.append(
                    f"{watch.kind} status answered {len(slow)} times of {len(watch.latencies)} "
                    f"after more than {STATUS_WITHIN * 1000:.0f} ms of the service's own, at "
                    f"worst {worst * 1000:.0f} ms"
                )
                for start, took, wait in slow[:5]:
                    acts = self.tally.during(start, start + took)
                    problems.append(
                        f"  {took * 1000:.0f} ms ({wait * 1000:.0f} ms of it waiting for a core) "
                        f"from {start:.3f} (monotonic), acts under way: {dict(acts)}"
                    )
        growth = self.memory.after - self.memory.before
        if growth > GROWTH_KIB:
            problems.append(f"resident memory grew {growth} KiB (at most {GROWTH_KIB})")
        problems += [f"log: {line}" for line in self.log.tracebacks[:5]]
        problems += self.floods()

    def floods(self) -> list[str]:
        """A warning or error logged more often than once a minute (each such condition is
        throttled so), or more lines than the acts could explain."""
        most = math.ceil(self.budget.seconds / LOG_EVERY) + 1
        found = [
            f"log: {count} lines of {text!r} (at most {most})"
            for text, count in self.log.by_condition.items()
            if count > most and LOUD.search(text[:60])
        ]
        acts = sum(self.tally.acts.values())
        if self.log.lines > LINES_PER_ACT * acts + 100:
            found.append(f"log: {self.log.lines} lines for {acts} acts")
        return found

    def show(self) -> None:
        line = json.dumps(self.summary())
        print(f"fuzz {self.name}: {line}")
        path = os.environ.get("GRIDWIRE_FUZZ_REPORT")
        if path:
            with open(path, "a") as f:
                f.write(line + "\n")

    def assert_sound(self) -> None:
        self.judge()
        self.show()
        if self.problems:
            shown = "\n".join(self.problems[:25])
            raise AssertionError(
                f"fuzz {self.name} (seed {self.budget.seed}, GRIDWIRE_FUZZ_SEED={self.budget.seed}"
                f" to run it again): {len(self.problems)} problems\n{shown}"
            )


async def fuzz(
    name: str,
    target: Target,
    acts: Sequence[tuple[float, Act, bool]],
    *,
    ports: dict[str, int],
    watch: Sequence[tuple[str, int]],
    about: object = None,
    budget: Budget | None = None,
) -> Report:
    """Run the crowd against ``target`` while the watchers ask for status."""
    budget = budget or Budget.from_environment()
    print(f"fuzz {name}: seed {budget.seed}, {budget.seconds} s, {budget.clients} clients")
    log_start = target.log.stat().st_size if target.log.exists() else 0
    watchers = [Watcher(kind, port, pid=target.pid) for kind, port in watch]
    control = Control()
    memory = Memory(target.pid)
    stop = asyncio.Event()
    try:
        await asyncio.sleep(0.5)  # the watchers' first answers are in: the service is warm
        memory.before = rss_kib(target.pid)
        sampling = asyncio.ensure_future(memory.sample(stop))
        swarm = Swarm(name, budget, ports, acts, about)
        tally = await swarm.run()
        await asyncio.sleep(SETTLE)
    finally:
        latencies = [watcher.finish() for watcher in watchers]
        machine = control.finish()
        stop.set()
    await sampling
    alive = target.alive()
    memory.after = rss_kib(target.pid) if alive else 0
    log = read_log(target.log, log_start)
    return Report(name, budget, tally, latencies, machine, memory, log, alive)
