"""``gridwire console --demo --allow-control`` under a crowd of hostile HTTP clients for a
bounded time (issue 9, proof): see tests/fuzz/run.py for what it must show."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz import targets
from tests.fuzz.console_acts import console, console_acts
from tests.fuzz.run import fuzz
from tests.fuzz.swarm import Budget

BUDGET = Budget.from_environment()
pytestmark = [pytest.mark.fuzz, pytest.mark.serial, pytest.mark.timeout(BUDGET.timeout())]


async def test_console_under_hostile_traffic(tmp_path: Path) -> None:
    with targets.console(tmp_path) as target:
        report = await fuzz(
            "console",
            target,
            console_acts(),
            ports={"http": target.port},
            watch=[("http", target.port)],
            about=console(target.port),
            budget=BUDGET,
        )
    report.assert_sound()
