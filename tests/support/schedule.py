"""The order the suite runs in, so that ``make test``'s parallel phase ends early (DESIGN D127).

pytest-xdist (``--dist load --maxschedchunk 1``) hands each worker the next test in collection
order as it finishes one, so the order decides the critical path: a long module started last
keeps one worker busy while the others idle. Here the test modules are put longest first,
by the seconds tests/durations.json records for each (a module it does not name yet, such as
a new one, counts as long, so it is started early too); the tests inside a module keep
pytest's order, so a module's fixtures are still set up once per worker that runs it.

``pytest --record-durations`` (``make durations``) writes the modules' seconds of the run back
into tests/durations.json, merged with what it held: the order is a hint, never a condition, so
a stale file only makes the suite a little slower.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

DURATIONS = Path(__file__).resolve().parents[1] / "durations.json"
UNKNOWN = float("inf")  # a module the file does not name yet is started first


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def read_durations(path: Path = DURATIONS) -> dict[str, float]:
    try:
        loaded = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}


def longest_modules_first(items: list[pytest.Item], seconds: dict[str, float]) -> None:
    """Reorders ``items`` in place: whole modules, the longest first (ties: pytest's order)."""
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(module_of(item.nodeid), index)

    def key(pair: tuple[int, pytest.Item]) -> tuple[float, int, int]:
        index, item = pair
        module = module_of(item.nodeid)
        return (-seconds.get(module, UNKNOWN), first_seen[module], index)

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]


class Recorder:
    """Sums each module's seconds (setup, call and teardown of its tests) over a run and
    merges them into the durations file at its end. Under xdist the reports reach the
    controlling process, which alone writes."""

    def __init__(self, path: Path = DURATIONS) -> None:
        self.path = path
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[module_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        merged = read_durations(self.path)
        merged.update({module: round(s, 1) for module, s in self.seconds.items()})
        ordered = dict(sorted(merged.items(), key=lambda pair: (-pair[1], pair[0])))
        self.path.write_text(json.dumps(ordered, indent=1) + "\n")
