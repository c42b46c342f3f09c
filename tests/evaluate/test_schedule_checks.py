"""The schedule checks (family schedules: SCHED-001, SCHED-002) through the whole run against
gridwire's simulated DER over TCP: it passes both and is left as found (its schedules, the
schedule shown, every output, AO88 which the running schedule set); made to misbehave (the
settings ``gridwire sim`` takes: ``accept_schedule_edits_in_use``, ``ignore_schedule_points``)
each fails with a detail that says what was seen."""

from __future__ import annotations

import copy

import pytest

from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.catalogue import CATALOGUE
from gridwire.evaluate.records import Report
from gridwire.simulator import SimulatedDer
from tests.derops.simulated import NAME, Setup, simulated
from tests.evaluate.test_family_writes import snapshot

SCHEDULES = [spec.id for spec in CATALOGUE if spec.family == "schedules"]


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


async def run(s: Setup, checks: list[str]) -> Report:
    return await evaluate(s.master, NAME, Options(checks, settle=1.0))


def kept(device: SimulatedDer) -> dict[str, object]:
    """Outputs and the schedules as stored (the binary inputs the model drives move)."""
    found = {k: v for k, v in snapshot(device).items() if not k.startswith("bi")}
    runner = device.schedules
    assert runner is not None
    found["schedules"] = copy.deepcopy(runner.schedules)
    found["shown"] = runner.selected
    return found


def test_the_family_is_the_two_schedule_checks() -> None:
    assert SCHEDULES == ["SCHED-001", "SCHED-002"]
    titles = {s.id: s.title for s in CATALOGUE if s.family == "schedules"}
    assert titles == {"SCHED-001": "Schedule editing", "SCHED-002": "A schedule runs"}


async def test_the_simulated_der_passes_both_and_is_left_as_found() -> None:
    async with simulated() as s:
        # Schedule 4 (the one the checks use) holds something, and schedule 2 is shown.
        stored = await s.der.write_schedule(4, [[0, 7], [30, 9]], type=14, priority=3)
        assert stored.matches
        assert (await s.der.schedule(2)).number == 2
        before = kept(s.device)
        report = await run(s, SCHEDULES)
        after = kept(s.device)
    results = {r.id: r for r in report.results}
    assert {id: r.verdict for id, r in results.items()} == dict.fromkeys(SCHEDULES, "passed")
    assert results["SCHED-001"].detail == (
        "schedule 4 written (type 13, 2 points) and read back; editing the priority and point "
        "1 of schedule 4 while it is ready (in use): refused AUTOMATION_INHIBIT, read back "
        "unchanged; selecting schedule 5 (4 stored) refused OUT_OF_RANGE; the selector still "
        "reads 4"
    )
    assert results["SCHED-002"].detail == (
        "schedule 4 (type 13) set ready: AI149 read 100 at its start and 200 2 s on, each "
        "within 1 s; set not ready, it stayed 200 past point 3's time"
    )
    assert report.left_changed == []
    assert after == before


@pytest.mark.parametrize(
    ("misbehave", "check", "detail"),
    [
        (
            "accept_schedule_edits_in_use",
            "SCHED-001",
            "editing the priority and point 1 of schedule 4 while it is ready (in use) was "
            "accepted (AO463 SUCCESS)",
        ),
        (
            "ignore_schedule_points",
            "SCHED-002",
            "schedule 4's point 1 (at the start): AI149 reads 1000, not 100, 1 s after it was "
            "due (the DER reports status Running, running schedule 4)",
        ),
    ],
)
async def test_a_misbehaving_der_fails_saying_what_was_seen(
    misbehave: str, check: str, detail: str
) -> None:
    device = SimulatedDer(misbehave=frozenset({misbehave}))
    async with simulated(device=device) as s:
        before = kept(s.device)
        report = await run(s, [check])
        after = kept(s.device)
    [result] = report.results
    assert (result.verdict, result.detail) == ("failed", detail)
    assert report.left_changed == []
    assert after == before
