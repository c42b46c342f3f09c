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


def test_a_worker_settles_its_heap_once_what_it_took_is_connected() -> None:
    # gridwire worker's outstations come after it starts: its heap is settled again once
    # it holds more and each one taken has been added (connected or failed), not before.
    code = """
import asyncio, gc, types
from gridwire.service import cluster

async def main():
    cluster.SETTLE_EVERY = 0.01
    loop = asyncio.get_running_loop()
    pending = loop.create_future()
    held = {"a": types.SimpleNamespace(added=pending)}
    worker = types.SimpleNamespace(holdings=types.SimpleNamespace(held=held))
    settling = asyncio.create_task(cluster._settling(worker))
    await asyncio.sleep(0.2)
    before = gc.get_freeze_count()
    pending.set_result(b"")
    await asyncio.sleep(0.2)
    settling.cancel()
    print(before, gc.get_freeze_count() > max(before, 1000), gc.get_threshold()[0] > 700)

asyncio.run(main())
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["0", "True", "True"]
