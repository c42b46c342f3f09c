"""``gridwire sep2`` observing the head-end double, its management API under a crowd of
hostile HTTP clients for a bounded time (issue 9, proof): see tests/fuzz/run.py for what it
must show."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz import targets
from tests.fuzz.run import fuzz
from tests.fuzz.sep2_acts import sep2, sep2_acts
from tests.fuzz.swarm import Budget
from tests.sep2.headend import HeadEndDouble
from tests.sep2.pki import Pki

BUDGET = Budget.from_environment()
pytestmark = [pytest.mark.fuzz, pytest.mark.serial, pytest.mark.timeout(BUDGET.timeout())]


async def test_sep2_api_under_hostile_traffic(
    tmp_path: Path, headend: HeadEndDouble, pki: Pki
) -> None:
    with targets.sep2(tmp_path, headend, pki) as target:
        report = await fuzz(
            "sep2",
            target,
            sep2_acts(),
            ports={"http": target.port},
            watch=[("get", target.port)],
            about=sep2(target.port),
            budget=BUDGET,
        )
    report.assert_sound()
