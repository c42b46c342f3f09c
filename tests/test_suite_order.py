"""The order make test's parallel phase hands tests out in (tests.support.schedule, D127)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from tests.support.schedule import Recorder, longest_modules_first, read_durations


@dataclass
class Item:
    nodeid: str


@dataclass
class Report:
    nodeid: str
    duration: float


def ordered(nodeids: list[str], seconds: dict[str, float]) -> list[str]:
    items = [Item(n) for n in nodeids]
    longest_modules_first(cast(list[pytest.Item], items), seconds)
    return [i.nodeid for i in items]


def test_modules_go_longest_first_whole_and_a_new_one_before_them() -> None:
    collected = ["a.py::x", "a.py::y", "b.py::x", "new.py::x", "c.py::x", "c.py::y[1]", "a.py::z"]
    seconds = {"a.py": 1.0, "b.py": 9.0, "c.py": 5.0}
    assert ordered(collected, seconds) == [
        "new.py::x",
        "b.py::x",
        "c.py::x",
        "c.py::y[1]",
        "a.py::x",
        "a.py::y",
        "a.py::z",
    ]


def test_without_durations_the_order_is_pytests() -> None:
    collected = ["b.py::x", "a.py::x", "b.py::y"]
    assert ordered(collected, {}) == ["b.py::x", "b.py::y", "a.py::x"]


def test_the_recorder_merges_a_runs_module_seconds_into_the_file(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    path.write_text('{"old.py": 3.0, "a.py": 100.0}')
    recorder = Recorder(path)
    for nodeid, duration in [("a.py::x", 0.25), ("a.py::x", 1.0), ("b.py::y", 7.0)]:
        recorder.pytest_runtest_logreport(cast(pytest.TestReport, Report(nodeid, duration)))
    recorder.pytest_sessionfinish(cast(pytest.Session, None))
    assert read_durations(path) == {"b.py": 7.0, "old.py": 3.0, "a.py": 1.2}
    assert list(read_durations(path)) == ["b.py", "old.py", "a.py"]  # longest first


def test_an_unreadable_file_is_no_durations(tmp_path: Path) -> None:
    broken = tmp_path / "durations.json"
    broken.write_text("[1, 2")
    assert read_durations(broken) == {}
    assert read_durations(tmp_path / "missing.json") == {}
