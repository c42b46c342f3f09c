"""The writing checks against DERs we did not configure by hand.

CONN-001 and SERV-001 on a DER numbered by a list we did not write: AN2018's points
(EPRI's DNP3 application note, the predecessor of IEEE 1815.2, in ../shared/data/an2018),
its outputs paired with their inputs as its ``mapped_input`` column says. There AO6-AO12 are
read back on AI50-AI56, AO13-AO17 have no input, BO3 alone (permission to start) is mirrored
(BI16), BO5 (the switch) is not, and the permissions start off (not granted). The simulated
DER serves that map: SERV-001 writes AO6-AO15 and reads back the mirrored ones, notes the
rest, grants the permissions it needs, stops and starts the DER, and puts all back.

And ``gridwire sim --der --misbehave ...`` as a subprocess, evaluated by ``gridwire
evaluate``: the checks its misbehaviours break fail, saying what was seen."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import orjson
import pytest

from gridwire.cli import main
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point
from gridwire.evaluate import Options, evaluate
from gridwire.simulator import SimulatedDer
from tests.derops.simulated import NAME, simulated
from tests.support.shared import shared_file
from tests.support.simulator import der_sim_with_profile

NO_INPUT = "65535"
LAST = {"BO": 5, "BI": 30, "AO": 17, "AI": 60}


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


def an2018_map() -> PointMap:
    """AN2018's points BO0-BO5, BI0-BI30, AO0-AO17 and AI0-AI60 as a point map."""
    path = shared_file("data/an2018/epri-an2018-points.csv")
    with path.open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if int(r["index"]) <= LAST.get(r["type"], -1)]
    points = []
    for row in rows:
        kind = Kind(row["type"])
        mirror = row["mapped_input"]
        associated = None
        if kind.is_output and mirror and mirror != NO_INPUT:
            associated = Address(kind.mirror or kind, int(mirror))
        points.append(
            Point(
                kind,
                int(row["index"]),
                row["name"].strip(),
                minimum=int(row["min"]) if row["min"] else None,
                maximum=int(row["max"]) if row["max"] else None,
                event_class=0 if kind.is_output else 2,
                associated=associated,
            )
        )
    return PointMap(points, title="AN2018 (EPRI), BO0-BO5, BI0-BI30, AO0-AO17, AI0-AI60")


async def test_serv_001_on_an2018_numbering_writes_reads_back_and_notes_what_has_no_mirror() -> (
    None
):
    point_map = an2018_map()
    device = SimulatedDer(point_map)
    async with simulated(device=device, point_map=point_map) as s:
        assert device.database.get("bo", 3).value is False  # permission to start withheld
        report = await evaluate(s.master, NAME, Options(["CONN-001", "SERV-001"], settle=1.5))
        await asyncio.sleep(0.6)
        db = s.device.database
        assert [db.get("bo", i).value for i in (3, 4)] == [False, False]  # put back
        assert db.get("bi", 14).value is True  # started, as found
        assert [db.get("ao", i).value for i in range(6, 16)] == [0] * 10  # as found
    conn, serv = report.results
    assert (conn.verdict, conn.detail) == (
        "not_applicable",
        "BO5 (the connect/disconnect switch) and its mirror are not served",
    )
    assert serv.verdict == "passed", serv
    assert serv.notes == [
        "AO13 has no mirror served: written, not read back",
        "AO14 has no mirror served: written, not read back",
        "AO15 has no mirror served: written, not read back",
        "BO4 has no mirror served: not toggled",
        "found started",
    ]


def test_gridwire_sim_misbehaving_fails_gridwire_evaluate_saying_what_was_seen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As a lab runs it: gridwire sim (a subprocess) told to misbehave, gridwire evaluate.
    misbehave = ["--misbehave", "inputs_online_when_disabled"]
    misbehave += ["--misbehave", "start_without_permission"]
    report = tmp_path / "report.json"
    with der_sim_with_profile(tmp_path / "profile.xml", *misbehave) as (port, _):
        code = main(
            [
                "evaluate",
                "der",
                "--outstation",
                f"der=127.0.0.1:{port}",
                "--profile",
                "--allow-control",
                *("--check", "SERV-001.2", "--check", "CVAR-001", "--check", "SERV-001.3"),
                *("--settle", "2", "--report", str(report)),
            ]
        )
    assert code == 1, capsys.readouterr()
    results = {r["id"]: r for r in orjson.loads(report.read_bytes())["results"]}
    assert results["SERV-001.2"]["verdict"] == "failed"
    assert results["SERV-001.2"]["detail"] == (
        "the start (BO1 on) without permission was accepted (BO1 SUCCESS)"
    )
    assert results["SERV-001.3"]["verdict"] == "passed"
    assert results["CVAR-001"]["verdict"] == "failed"
    assert results["CVAR-001"]["detail"].startswith(
        "Constant VArs disabled, its inputs: AI277 is not offline: flags ONLINE;"
    )
