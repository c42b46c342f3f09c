"""The first family checks, which only read: PROFILE-001 (profile), MON-001, ALARM-001 and
OP-001 (monitoring), through the whole run against gridwire's simulated DER over TCP. The
simulated DER passes each; made to misbehave (a Device Profile of another DER, a point gone
offline, a value outside the tables' range, two operating states at once) the matching check
fails with a detail saying what was seen."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gridwire.der.demo import demo_map
from gridwire.derops import DerMaster
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.records import CheckResult
from gridwire.master import OutstationSettings
from gridwire.outstation import run_outstation
from gridwire.simulator import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile
from tests.derops.simulated import NAME, Setup, simulated, without

READS = ["PROFILE-001", "MON-001", "ALARM-001", "OP-001"]


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


@contextlib.asynccontextmanager
async def with_document(
    tmp_path: Path, document_of: SimulatedDer | None = None
) -> AsyncIterator[Setup]:
    """The simulated DER, added with a Device Profile document (its own, or that of
    ``document_of``)."""
    device = SimulatedDer()
    async with run_outstation(device, "127.0.0.1", 0, tick_interval=0.5) as server:
        path = tmp_path / "device-profile.xml"
        path.write_bytes(der_device_profile(document_of or device, port=server.port))
        master = DerMaster(allow_control=True, profiles=lambda name: demo_map())
        try:
            await master.add(
                OutstationSettings(
                    name=NAME,
                    host="127.0.0.1",
                    port=server.port,
                    profile="ieee1815.2",
                    device_profile=str(path),
                )
            )
            await master.idle(NAME)
            yield Setup(master, master.der(NAME), device)
        finally:
            await master.close()


def by_id(results: list[CheckResult]) -> dict[str, CheckResult]:
    return {r.id: r for r in results}


async def test_the_simulated_der_passes_every_read_check(tmp_path: Path) -> None:
    async with with_document(tmp_path) as s:
        report = await evaluate(s.master, NAME, Options(READS))
    results = by_id(report.results)
    assert {r.verdict for r in report.results} == {"passed"}, report.results
    assert results["MON-001"].notes == ["24 of 24 served"]
    assert results["MON-001"].detail == (
        "24 of 24 system meter points (AI533-AI556) online, numeric and within the tables' ranges"
    )
    assert results["ALARM-001"].detail == (
        "10 of 22 alarm points (BI0-BI9, BI94-BI105) online, none raised"
    )
    assert results["OP-001"].detail.startswith(
        "13 of 13 operating state points (BI10-BI22) online; not both started and stopped"
    )
    declared = results["PROFILE-001"].notes[0].split()[0]
    assert results["PROFILE-001"].detail.startswith(
        f"the {declared} points the Device Profile declares are the {declared} served"
    )
    assert results["PROFILE-001"].notes[0].endswith("served")
    assert results["PROFILE-001"].requests >= 2  # class 0, output status (and ranges)
    assert all(r.frames is not None for r in report.results)


async def test_profile_001_without_a_document_is_not_applicable_and_takes_the_fallback(
    tmp_path: Path,
) -> None:
    async with simulated() as s:
        report = await evaluate(s.master, NAME, Options(["PROFILE-001"]))
        assert report.results[0].verdict == "not_applicable"
        assert "no Device Profile document" in report.results[0].detail
        fallback = tmp_path / "fallback.xml"
        fallback.write_bytes(der_device_profile(s.device))
        report = await evaluate(s.master, NAME, Options(["PROFILE-001"]), device_profile=fallback)
        assert report.results[0].verdict == "passed", report.results[0]
        fallback.write_text("not xml")
        report = await evaluate(s.master, NAME, Options(["PROFILE-001"]), device_profile=fallback)
        assert report.results[0].verdict == "failed"
        assert "could not be used" in report.results[0].detail


async def test_profile_001_fails_naming_what_the_document_does_not_declare(
    tmp_path: Path,
) -> None:
    other = SimulatedDer(without(demo_map(), "AI537", "BI3"))
    async with with_document(tmp_path, document_of=other) as s:
        report = await evaluate(s.master, NAME, Options(["PROFILE-001"]))
    result = report.results[0]
    assert result.verdict == "failed"
    assert "2 served but not declared: BI3, AI537" in result.detail


async def test_misbehaving_monitoring_alarms_and_states_fail_saying_what_was_seen() -> None:
    async with simulated() as s:
        db = s.device.database
        now = time.monotonic()
        db.update("ai", 533, 500, now=now)  # the tables' range is 0..99
        db.update("bi", 3, flags=0, now=now)  # an alarm input gone offline
        db.update("bi", 4, True, now=now)  # an alarm raised
        db.update("bi", 14, True, now=now)
        db.update("bi", 15, True, now=now)  # started and stopped at once
        report = await evaluate(s.master, NAME, Options(["MON-001", "ALARM-001", "OP-001"]))
    results = by_id(report.results)
    mon, alarm, op = results["MON-001"], results["ALARM-001"], results["OP-001"]
    assert mon.verdict == "failed"
    assert "AI533 reported 500 (transmitted), outside the tables' range 0..99" in mon.detail
    assert alarm.verdict == "failed"
    assert "BI3 is not online: flags none, not exactly ONLINE" in alarm.detail
    assert any(note.startswith("alarms raised: BI4") for note in alarm.notes)
    assert op.verdict == "failed"
    assert "BI14 (started) and BI15 (stopped) are both set" in op.detail
