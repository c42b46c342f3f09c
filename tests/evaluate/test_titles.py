"""Stable names (D120): each check has one title, fixed by the catalogue, the same for
every device. ``--list``, ``checks`` and every report name a check alike, whatever the
device's tables call its functions and whether it supports them; what is particular to the
device goes in the detail. Runs against the simulated DER serving tables that rename every
function, and against yadnp3's (opendnp3's) outstation given a JSON map of the test's own."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

from gridwire.cli import main
from gridwire.der.demo import demo_map
from gridwire.der.pointmap import PointMap
from gridwire.derops import DerMaster
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.catalogue import CATALOGUE, listing
from gridwire.evaluate.context import CheckContext
from gridwire.master import OutstationSettings
from tests.derops.simulated import NAME, simulated
from tests.support.peers import yadnp3_outstation

LISTED = {info.id: info.title for info in listing()}

# The mode checks' titles: the catalogue's name of the function and the output (BO) that
# enables it in IEEE 1815.2's tables, written out here rather than derived.
MODE_TITLES = {
    "VRT-001": "Voltage Ride-Through (BO12)",
    "FRT-001": "Frequency Ride-Through (BO13)",
    "DRCS-001": "Dynamic Reactive Current Support (BO14)",
    "DVW-001": "Dynamic Volt-Watt (BO15)",
    "FW-001": "Frequency-Watt (BO16)",
    "APL-001": "Active Power Limit (BO17)",
    "CHG-001": "Charge/Discharge (BO18)",
    "CCM-001": "Coordinated Charge/Discharge Management (BO19)",
    "APR1-001": "Active Power Response 1 (BO20)",
    "APR2-001": "Active Power Response 2 (BO21)",
    "APR3-001": "Active Power Response 3 (BO22)",
    "AGC-001": "Automatic Generation Control (BO23)",
    "APS-001": "Active Power Smoothing (BO24)",
    "VW-001": "Volt-Watt (BO25)",
    "FWC-001": "Frequency-Watt Curve (BO26)",
    "CVAR-001": "Constant VArs (BO27)",
    "FPF-001": "Fixed Power Factor (BO28)",
    "VV-001": "Volt-VAr (BO29)",
    "WV-001": "Watt-VAr (BO30)",
    "PFC-001": "Power Factor Correction (BO31)",
    "PSIG-001": "Pricing Signal (BO32)",
}


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


def test_one_title_per_check_fixed_by_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert {id: LISTED[id] for id in MODE_TITLES} == MODE_TITLES
    assert len(set(LISTED.values())) == 46  # no two checks share a title
    assert {spec.id: spec.title for spec in CATALOGUE} == LISTED
    # --list prints the same titles, each line ending with it.
    assert main(["evaluate", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(LISTED)
    for line, title in zip(lines, LISTED.values(), strict=True):
        assert line.endswith(f" {title}"), line


def test_a_check_cannot_change_its_title() -> None:
    spec = next(s for s in CATALOGUE if s.id == "WV-001")
    ctx = CheckContext(spec, run=None)  # type: ignore[arg-type]  # the title needs no run
    assert ctx.title == "Watt-VAr (BO30)"
    with pytest.raises(AttributeError):
        ctx.title = "Watt-VAr: not supported"  # type: ignore[misc]
    assert ctx.title == "Watt-VAr (BO30)"


def renamed(point_map: PointMap) -> PointMap:
    """The map with every function named as a maker might: "<name> (vendor mode)"."""
    functions = [
        dataclasses.replace(f, name=f"{f.name} (vendor mode)") for f in point_map.functions
    ]
    return PointMap(
        point_map.points,
        title="a vendor's own tables",
        functions=functions,
        curve_block=point_map.curve_block,
    )


async def test_titles_are_the_catalogues_whatever_the_tables_call_a_function() -> None:
    tables = renamed(demo_map())
    checks = ["ALARM-001", "VRT-001", "APL-001", "FPF-001", "VV-001", "WV-001"]  # in order
    async with simulated(point_map=tables) as s:
        report = await evaluate(s.master, NAME, Options(checks, settle=1.5))
    assert [(r.id, r.title) for r in report.results] == [(id, LISTED[id]) for id in checks]
    results = {r.id: r for r in report.results}
    # What is particular to the device is said in the detail, never in the title.
    assert results["VV-001"].verdict == "passed"
    assert results["VV-001"].detail.startswith("reports Volt-VAr (vendor mode) supported (BI48")
    assert results["FPF-001"].detail.startswith("reports Constant Power Factor (vendor mode)")
    assert (results["WV-001"].verdict, results["WV-001"].detail.split(":")[0]) == (
        "passed",
        "reports Watt-VAr (vendor mode) unsupported (BI49 off) and acts so",
    )
    assert results["VRT-001"].verdict == "not_applicable"


def peer_map(path: Path) -> Path:
    """A JSON map of AI0-AI4, BI0-BI4, BO0-BO1 as yadnp3's outstation serves them and BO29
    (not served), the enable of one function of its own name (its supports input BI3, which
    reads false)."""
    points = [
        {"kind": kind, "index": index, "name": f"{kind} {index}", "event_class": 1}
        for kind in ("AI", "BI")
        for index in range(5)
    ]
    points += [{"kind": "BO", "index": index, "name": f"BO {index}"} for index in (0, 1, 29)]
    document = {
        "format": "gridwire.der-map",
        "version": 1,
        "title": "opendnp3's generic database, as a profile of the test's own",
        "points": points,
        "functions": [
            {"key": "peer-reactive", "name": "the peer's reactive mode", "enable": "BO29",
             "supports": "BI3"},
        ],
    }  # fmt: skip
    path.write_bytes(orjson.dumps(document))
    return path


@pytest.mark.interop
async def test_titles_are_the_catalogues_against_opendnp3(tmp_path: Path) -> None:
    with yadnp3_outstation(points=5) as peer:
        master = DerMaster(tables=peer_map(tmp_path / "map.json"), allow_control=True)
        try:
            settings = OutstationSettings(
                name="opendnp3", host="127.0.0.1", port=peer.port, profile="ieee1815.2"
            )
            await master.add(settings)
            await master.idle("opendnp3")
            report = await evaluate(master, "opendnp3", Options(settle=1))
        finally:
            await master.close()
    assert [(r.id, r.title) for r in report.results] == list(LISTED.items())
    results = {r.id: r for r in report.results}
    # The check of the function the map puts on BO29 ran (the peer does not serve BO29):
    # the map's name is in its detail, the title is the catalogue's.
    volt_var = results["VV-001"]
    # opendnp3 refuses a control of an output it lacks NOT_SUPPORTED: the function is not
    # supported, and the DER acts so.
    assert (volt_var.verdict, volt_var.detail) == (
        "passed",
        "reports the peer's reactive mode unsupported (BI3 off) and acts so: enabling it "
        "(BO29) refused NOT_SUPPORTED, no other point",
    )
    assert [r.id for r in report.results if r.verdict == "passed" and not r.detail] == []
