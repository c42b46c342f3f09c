"""The long-running commands' heap settings (gridwire.process.runtime). Run in a subprocess: they are
process-wide and must not leak into the test process."""

from __future__ import annotations

import subprocess
import sys


def test_settle_heap_freezes_start_up_and_raises_the_young_threshold() -> None:
    code = (
        "import gc; from gridwire.process.runtime import settle_heap, YOUNG_GENERATION_THRESHOLD as T;"
        "before = gc.get_freeze_count(); settle_heap();"
        "print(before, gc.get_freeze_count() > 1000, gc.get_threshold()[0] == T, T > 700)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["0", "True", "True", "True"]


def test_the_library_leaves_the_collector_alone() -> None:
    # Importing and using the master must not touch the collector: only the commands do.
    code = (
        "import gc; t = gc.get_threshold(); import gridwire.master, gridwire.service.runner;"
        "print(gc.get_threshold() == t, gc.get_freeze_count())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["True", "0"]
