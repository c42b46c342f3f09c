"""Reporting at the postRate the server gives (DESIGN D202): the head-end double's EndDevice
carries a postRate (the DER resources' cadence) and the MirrorUsagePoint it serves back at
its Location another (the readings' cadence); the gateway is configured at 300 s, so any
second PUT or POST within the window is the server's rate at work. Counts over windows,
with generous bounds: the machine is noisy."""

from __future__ import annotations

import asyncio
import math
import time
from pathlib import Path

import pytest

from tests.gateway.conftest import rig
from tests.gateway.headend_der import DerHeadEnd, Program
from tests.sep2.pki import Pki
from tests.support.waiting import until

DEFAULT = "<DERControlBase><opModMaxLimW>10000</opModMaxLimW></DERControlBase>"


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/.gridwire holds no tables: the demo map


async def test_reports_follow_the_servers_post_rates_and_fall_back_to_the_configured(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    headend.programs = [Program(1, [], DEFAULT)]
    headend.devices[1].post_rate = 1  # the EndDevice's: DERStatus and the others every 1 s
    headend.mup_post_rate = 2  # the MirrorUsagePoint's: readings every 2 s

    def counts() -> tuple[int, int]:
        return len(headend.puts("ders")), len(headend.posts("/mup/0"))

    async with rig(headend, pki, tmp_path / "gw.db") as r:
        reporter = r.gateway.reporter
        assert reporter is not None
        assert reporter.post_seconds == 300.0  # the configured fallback
        await until(lambda: reporter.der_rate == 1 and reporter.mirror_rate == 2, within=10)
        before, started = counts(), time.monotonic()
        await asyncio.sleep(3.0)
        after, took = counts(), time.monotonic() - started
        ders, readings = after[0] - before[0], after[1] - before[1]
        # About 3 and 1.5 in 3 s; 300 s configured would give none. Rounds are never closer
        # than their rate (give or take the PUTs' own jitter), which bounds the counts.
        assert 2 <= ders <= math.floor(took) + 2, (ders, took)
        assert 1 <= readings <= math.floor(took / 2) + 2, (readings, took)
        # The server stops giving rates: the configured 300 s applies from the next round.
        headend.devices[1].post_rate = None
        headend.mup_post_rate = None
        now = counts()
        await until(lambda: all(a > b for a, b in zip(counts(), now, strict=True)), within=6)
        await until(lambda: reporter.der_rate is None and reporter.mirror_rate is None, within=2)
        quiet = counts()
        await asyncio.sleep(1.2)
        assert counts() == quiet
    assert {p.method for p in headend.posted if p.path.startswith("/edev/1/der/0/")} == {"PUT"}
