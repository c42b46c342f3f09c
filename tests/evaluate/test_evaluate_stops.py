"""``gridwire evaluate`` (a subprocess) against ``gridwire sim --der`` (another), stopped
mid-check however it is stopped: the DER is found as it was before the run by a master of
the test's own (every output, BI14/BI15, the curve shown and each stored curve), and the exit
status says how the run ended (issue 15)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridwire.evaluate.journal import journal_path
from gridwire.master import OutstationSettings
from tests.evaluate.stops import (
    as_before,
    differences,
    look,
    relayed,
    run_evaluate,
    start_evaluate,
)
from tests.support.simulator import der_sim_with_profile

FOLLOWER = "PSIG-001"
"""A check after every one chosen below, left not run when the run is stopped."""
FAMILIES = {
    "service": "SERV-001.2",
    "curves": "CURVE-002",
    "modes": "VV-001",
    "connect": "CONN-001",
}
SLOW = {"service": 0.05, "curves": 0.05, "modes": 0.05, "connect": 0.25}
"""Seconds the relay holds each answer of the simulated DER, so the check lasts seconds."""
STOPS = {
    "SIGTERM": [signal.SIGTERM],
    "SIGHUP": [signal.SIGHUP],
    "SIGINT": [signal.SIGINT],
    "SIGINT twice": [signal.SIGINT, signal.SIGINT],
}


@pytest.fixture(scope="module")
def der(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with der_sim_with_profile(tmp_path_factory.mktemp("sim") / "profile.xml") as (port, _):
        yield port


def _report(path: Path) -> dict[str, object]:
    report = json.loads(path.read_text())
    assert isinstance(report, dict)
    return report


@pytest.mark.parametrize("stop", list(STOPS))
@pytest.mark.parametrize("family", list(FAMILIES))
def test_stopped_mid_check_leaves_the_der_as_found(
    der: int, tmp_path: Path, family: str, stop: str
) -> None:
    check = FAMILIES[family]
    before = look(der)
    report = tmp_path / "r.json"
    with relayed(der, SLOW[family]) as relay:  # a check of the simulated DER lasts a few seconds
        run = start_evaluate(
            relay.port, tmp_path / "state", "--allow-control", "--settle", "2",
            "--check", check, "--check", FOLLOWER,
            "--report", str(report), "--junit", str(tmp_path / "r.xml"),
        )  # fmt: skip
        run.wait_for_command()
        for number, sent in enumerate(STOPS[stop]):
            if number:
                time.sleep(0.3)
            os.killpg(run.proc.pid, sent)
        code, out, err = run.finish()
    assert "Traceback" not in err, err
    assert code == 3, (out, err)
    after = as_before(der, before)
    assert after == before, differences(before, after)
    written = _report(report)
    assert written["left_changed"] == []
    summary = written["summary"]
    assert isinstance(summary, dict) and summary["incomplete"] is True
    results = {r["id"]: r for r in written["results"]}  # type: ignore[attr-defined]
    assert results[FOLLOWER]["verdict"] == "not_run" and results[FOLLOWER]["interrupted"]
    if len(STOPS[stop]) == 1:
        assert "stopping after the check under way" in err
        assert not results[check]["interrupted"], results[check]
    else:  # the check under way stopped, its restores run
        assert "(Ctrl-C again leaves the DER as it stands)" in err
        assert results[check]["interrupted"] and results[check]["verdict"] == "not_run"
    assert (tmp_path / "r.xml").exists()
    assert not list((tmp_path / "state").glob("journal-*"))


def test_killed_mid_check_then_restore_from_the_journal(der: int, tmp_path: Path) -> None:
    before = look(der)
    state = tmp_path / "state"
    run = start_evaluate(der, state, "--allow-control", "--settle", "2", "--check", "SERV-001.2")
    run.wait_for_command()
    time.sleep(0.6)  # the stop sent, the permission withdrawn
    os.killpg(run.proc.pid, signal.SIGKILL)
    run.finish()
    journals = list(state.glob("journal-*.json"))
    assert [p.name for p in journals] == [f"journal-127.0.0.1-{der}-1024.json"]
    entries = json.loads(journals[0].read_text())["entries"]
    assert {
        "type": "bo",
        "index": 2,
        "as_found": False,
        "variation": None,
        "selector": None,
    } in entries
    assert look(der) != before  # left stopped

    code, _, err = run_evaluate(der, state, "--check", "MON-001")
    assert code == 2 and str(journals[0]) in err and "--restore" in err, err

    code, out, err = run_evaluate(der, state, "--restore")
    assert code == 2 and "--allow-control" in err
    code, out, err = run_evaluate(der, state, "--restore", "--allow-control")
    assert code == 0, (out, err)
    assert "run state: as found started, now started: put back" in out
    assert "BO2: as found False, now False: put back" in out
    assert not journals[0].exists()
    after = as_before(der, before)
    assert after == before, differences(before, after)


def test_a_journal_left_refuses_the_run_until_discarded(der: int, tmp_path: Path) -> None:
    state = tmp_path / "state"
    path = journal_path(state, OutstationSettings(name="x", host="127.0.0.1", port=der))
    state.mkdir()
    path.write_text(json.dumps({"entries": [{"type": "bo", "index": 29, "as_found": False}]}))
    code, _, err = run_evaluate(der, state, "--check", "MON-001")
    assert code == 2 and f"a restore journal is left for this outstation ({path})" in err
    code, out, err = run_evaluate(der, state, "--check", "MON-001", "--discard-journal")
    assert code == 0, (out, err)
    assert f"discarded the restore journal {path}" in out
    assert not path.exists()


@pytest.mark.serial  # the cut lands 0.6 s into the check: it bounds when things happen
def test_the_connection_cut_mid_check_is_restored_once_back(der: int, tmp_path: Path) -> None:
    before = look(der)
    with relayed(der) as relay:
        report = tmp_path / "r.json"
        run = start_evaluate(
            relay.port, tmp_path / "state", "--allow-control", "--settle", "2",
            "--check", "SERV-001.2", "--check", FOLLOWER, "--report", str(report),
        )  # fmt: skip
        run.wait_for_command()
        time.sleep(0.6)
        relay.cut()
        time.sleep(4)  # beyond the check's last read: it finds no connection
        relay.resume()
        code, out, err = run.finish()
    assert "Traceback" not in err, err
    assert code == 3, (out, err)
    written = _report(report)
    assert written["left_changed"] == []
    results = {r["id"]: r for r in written["results"]}  # type: ignore[attr-defined]
    assert results["SERV-001.2"]["verdict"] == "failed"
    assert "the connection was lost" in results["SERV-001.2"]["detail"]
    assert results[FOLLOWER]["interrupted"] is True
    after = as_before(der, before)
    assert after == before, differences(before, after)


@pytest.mark.serial  # the cut lands 0.6 s into the check: it bounds when things happen
def test_the_connection_never_back_leaves_it_said_and_journaled(der: int, tmp_path: Path) -> None:
    before = look(der)
    state = tmp_path / "state"
    with relayed(der) as relay:
        report = tmp_path / "r.json"
        run = start_evaluate(
            relay.port, state, "--allow-control", "--settle", "2", "--restore-wait", "2",
            "--check", "SERV-001.2", "--report", str(report),
        )  # fmt: skip
        run.wait_for_command()
        time.sleep(0.6)
        relay.cut()
        code, out, err = run.finish()
        assert "Traceback" not in err, err
        assert code == 4, (out, err)
        assert "LEFT CHANGED" in err and "BO2: as found false, now not read" in err
        assert "ERROR gridwire.evaluate: left changed on der: BO2" in err
        left = _report(report)["left_changed"]
        assert {"point": "BO2", "as_found": False, "now": None} in left  # type: ignore[operator]
        assert list(state.glob("journal-*.json"))
        relay.resume()
        code, out, err = run_evaluate(relay.port, state, "--restore", "--allow-control")
        assert code == 0, (out, err)
    after = as_before(der, before)
    assert after == before, differences(before, after)


@pytest.mark.parametrize(
    ("checks", "flag"),
    [(["deviation"], "--allow-deviations"), (["CONN-001", "SERV-001"], "--allow-control")],
)
def test_nothing_runnable_for_want_of_a_flag_exits_2(
    der: int, tmp_path: Path, checks: list[str], flag: str
) -> None:
    chosen = [arg for check in checks for arg in ("--check", check)]
    code, _, err = run_evaluate(der, tmp_path, *chosen, "--report", str(tmp_path / "r.json"))
    assert code == 2, err
    assert f"no check could run: give {flag}" in err
    assert (tmp_path / "r.json").exists()


def test_a_third_signal_leaves_at_once_and_lists_the_journal(der: int, tmp_path: Path) -> None:
    before = look(der)
    state = tmp_path / "state"
    with relayed(der, 0.3) as relay:  # the restores take seconds: the third comes first
        run = start_evaluate(
            relay.port, state, "--allow-control", "--settle", "2", "--check", "SERV-001.2",
            "--report", str(tmp_path / "r.json"),
        )  # fmt: skip
        run.wait_for_line('operate on der {"controls":[["bo",2,true,null]]')  # the stop
        for number in range(3):
            if number:
                time.sleep(0.3)
            os.killpg(run.proc.pid, signal.SIGINT)
        code, out, err = run.finish()
        assert "Traceback" not in err, err
        assert code == 4, (out, err)
        assert "LEFT CHANGED" in err and "  BO2: as found false, now not read" in err
        assert not (tmp_path / "r.json").exists()  # it left at once
        journal = next(state.glob("journal-*.json"))
        code, out, err = run_evaluate(relay.port, state, "--restore", "--allow-control")
    assert code == 0, (out, err)
    assert not journal.exists()
    after = as_before(der, before)
    assert after == before, differences(before, after)
