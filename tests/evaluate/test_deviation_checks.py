"""The deviation checks (issue 11: LINK-001..004, TRANSPORT-001..002, CONFIRM-001..003) through
the evaluation run, against gridwire's simulated DER over TCP: it passes every one; made to
misbehave on purpose (the settings ``gridwire sim`` takes: ``accept_bad_crc``,
``forget_unconfirmed_events``) the matching checks fail with a detail saying what was seen.
The same checks against opendnp3 are in test_deviation_yadnp3.py."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gridwire.der.demo import demo_map
from gridwire.derops import DerMaster
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.records import Report
from gridwire.master import OutstationSettings
from gridwire.outstation import OutstationConfig, run_outstation
from gridwire.simulator import SimulatedDer
from tests.derops.simulated import NAME

LINK = ["LINK-001", "LINK-002", "LINK-003", "LINK-004", "TRANSPORT-001", "TRANSPORT-002"]
CONFIRM = ["CONFIRM-001", "CONFIRM-002", "CONFIRM-003"]
DEVIATIONS = [
    "corrupt_header_crc",
    "corrupt_body_crc",
    "truncate",
    "overstate_length",
    "orphan_segment",
    "endless_series=64",
    "withhold_confirmation",
    "wrong_confirmation_sequence",
    "late_confirmation=0.5",
]


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


@contextlib.asynccontextmanager
async def der(*misbehave: str, device: SimulatedDer | None = None) -> AsyncIterator[DerMaster]:
    """The simulated DER (misbehaving as named) and a master with its demo profile."""
    config = OutstationConfig(misbehave=frozenset(misbehave))
    chosen = demo_map()
    device = device or SimulatedDer()
    async with run_outstation(device, "127.0.0.1", 0, config=config, tick_interval=0.5) as server:
        master = DerMaster(profiles=lambda name: chosen)
        try:
            await master.add(
                OutstationSettings(
                    name=NAME, host="127.0.0.1", port=server.port, profile="ieee1815.2"
                )
            )
            await master.idle(NAME)
            yield master
        finally:
            await master.close()


async def deviation_checks(master: DerMaster, checks: list[str] | None = None) -> Report:
    options = Options(checks or ["deviation"], allow_deviations=True, settle=3)
    return await evaluate(master, NAME, options)


async def test_the_simulated_der_passes_every_deviation_check(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, "gridwire.master.deviations")
    async with der() as master:
        report = await deviation_checks(master)
        assert master.session(NAME).deviations.on == {}
    verdicts = {r.id: r.verdict for r in report.results}
    assert verdicts == dict.fromkeys(LINK + CONFIRM, "passed")
    by_id = {r.id: r for r in report.results}
    for id in LINK:
        # Two probes before, the deviated one, at least one after (gridwire's link layer
        # checks each data block as it comes, so it answers the first probe after, unless a
        # very busy machine holds the answer past the window).
        assert by_id[id].requests >= 4, by_id[id]
        # The pass says what was verified, with its figures.
        assert by_id[id].detail.startswith("the probe (a READ of AI0): answered in ")
        assert " ms before; sent " in by_id[id].detail
        assert "answered again at probe" in by_id[id].detail
        if id != "TRANSPORT-001":
            assert ": unanswered (waited " in by_id[id].detail
    assert "sent after a segment with no first: answered once;" in by_id["TRANSPORT-001"].detail
    for id in CONFIRM:
        assert " events reported again " in by_id[id].detail
        assert by_id[id].detail.endswith(" reported with a time came back")
    # The simulated DER's events carry their time: nothing to say about untimed ones.
    assert not any("carry no time" in note for id in CONFIRM for note in by_id[id].notes)
    # No probe waited out the response timeout (5 s): without the short window the six
    # would take 30 s at least. Generous headroom for a loaded machine.
    assert sum(by_id[id].seconds for id in LINK) < 12
    # Each deviation turned on once and off once (the check turns it off itself, after the
    # deviated probe or poll; the restore does not do it again).
    changes = [r.getMessage().split(": ", 1)[1].split(";")[0] for r in caplog.records]
    expected = [[f"on {name}", f"off {name.split('=')[0]}"] for name in DEVIATIONS]
    assert changes == [change for pair in expected for change in pair]


async def test_a_der_that_takes_frames_with_bad_crcs_fails_link_001_and_002() -> None:
    async with der("accept_bad_crc") as master:
        report = await deviation_checks(master, LINK)
    by_id = {r.id: r for r in report.results}
    for id, what in (("LINK-001", "bad header CRC"), ("LINK-002", "bad data CRC")):
        assert by_id[id].verdict == "failed"
        assert f"the probe (a READ of AI0) with a {what} was answered" in by_id[id].detail
        assert "took a frame it must discard" in by_id[id].detail
    # A frame not whole (cut short, length overstated) still reaches the link layer as it
    # came, which drops it: those checks pass.
    assert {by_id[id].verdict for id in LINK[2:]} == {"passed"}


async def test_a_der_that_forgets_unconfirmed_events_fails_the_confirm_checks() -> None:
    async with der("forget_unconfirmed_events") as master:
        report = await deviation_checks(master, CONFIRM)
    details = {r.id: r.detail for r in report.results if r.verdict == "failed"}
    assert set(details) == set(CONFIRM)
    withheld = "events were not reported again after their confirmation was withheld: AI"
    assert withheld in details["CONFIRM-001"]
    assert "after a confirmation with the wrong sequence number" in details["CONFIRM-002"]
    assert "when their confirmation came after the next request" in details["CONFIRM-003"]


async def test_events_beyond_one_fragment_are_judged_by_the_first_without_waiting() -> None:
    device = SimulatedDer()
    async with der(device=device) as master:
        master.set_tasks(NAME, {"events_when_indicated": False})
        for value in range(400):  # about three fragments of g32v3 events
            device.database.update("ai", 537, value * 1000, now=100.0 + value)  # deadband 100
        report = await deviation_checks(master, ["CONFIRM-001", "CONFIRM-002"])
    for result in report.results:
        assert result.verdict == "passed", result
        # Not the 5 s response timeout of a first fragment whose confirmation never came.
        assert result.seconds < 4
    first = report.results[0]
    assert "the events filled more than one fragment" in first.notes[0]
    assert " confirmed with the deviation off; none of the " in first.detail


async def test_confirm_checks_need_the_master_to_confirm() -> None:
    async with der() as master:
        # Set after connecting: a master that never confirms could not read the DER's
        # class 0 (several fragments, each confirmed before the next comes).
        master.session(NAME).settings.confirm = False
        report = await deviation_checks(master, CONFIRM)
    assert {r.verdict for r in report.results} == {"not_applicable"}
    assert "the master is set not to confirm" in report.results[0].detail
