"""free_port under pytest-xdist (tests.support.net, D126): each worker picks from a slice of
its own below the ephemeral range, so no connection and no other worker takes its port."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.net import _ephemeral_low

ROOT = Path(__file__).resolve().parents[1]
PICKS = 200


def picks(worker: str, count: str) -> list[int]:
    code = f"from tests.support.net import free_port;print(*(free_port() for _ in range({PICKS})))"
    env = os.environ | {"PYTEST_XDIST_WORKER": worker, "PYTEST_XDIST_WORKER_COUNT": count}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True, timeout=60,
    ).stdout  # fmt: skip
    return [int(p) for p in out.split()]


@pytest.mark.skipif(_ephemeral_low() < 24_000, reason="no room below the ephemeral range")
def test_workers_pick_apart_below_the_ephemeral_range_and_never_20000() -> None:
    first, last = picks("gw0", "4"), picks("gw3", "4")
    low = _ephemeral_low()
    assert len(set(first)) == len(set(last)) == PICKS  # no port given twice
    assert all(20000 < p < low for p in first + last)
    assert max(first) < min(last)  # gw0's slice lies below gw3's
