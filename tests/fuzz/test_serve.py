"""``gridwire serve --allow-control --profile`` (its outstation ``gridwire sim --der``) under a
crowd of hostile line clients for a bounded time (issue 9, proof): see tests/fuzz/run.py for
what it must show."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz import targets
from tests.fuzz.line_acts import line_acts
from tests.fuzz.run import fuzz
from tests.fuzz.swarm import Budget

BUDGET = Budget.from_environment()
pytestmark = [pytest.mark.fuzz, pytest.mark.serial, pytest.mark.timeout(BUDGET.timeout())]


async def test_line_service_under_hostile_traffic(tmp_path: Path) -> None:
    with targets.serve(tmp_path) as target:
        report = await fuzz(
            "serve",
            target,
            line_acts(),
            ports={"line": target.port},
            watch=[("line", target.port)],
            budget=BUDGET,
        )
    report.assert_sound()
