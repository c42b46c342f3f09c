"""The checks that write: CONN-001, SERV-001, SERV-001.2, SERV-001.3 (family service) and the
21 mode checks (family modes), through the whole run against gridwire's simulated DER over
TCP. The simulated DER passes every applicable one and is left as it was found; made to
misbehave on purpose (the settings ``gridwire sim`` takes: ``inputs_online_when_disabled``,
``start_without_permission``; a switch, a stop or a setting accepted and ignored; a point of
a function it does not support served) the matching check fails with a detail saying what
was seen."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time

import pytest

from gridwire.der.demo import demo_map
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point
from gridwire.der.text import EnumValue
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.catalogue import CATALOGUE
from gridwire.evaluate.families.outputs import value_sets
from gridwire.evaluate.records import CheckResult, Report
from gridwire.outstation.controls import BinaryCommand, Command, Mode
from gridwire.simulator import SimulatedDer
from gridwire.simulator import profile as P
from tests.derops.simulated import NAME, Setup, simulated, without

SERVICE = ["CONN-001", "SERV-001", "SERV-001.2", "SERV-001.3"]
MODES = [spec.id for spec in CATALOGUE if spec.family == "modes"]
SUPPORTED = {
    "APL-001": "Active Power Limit",
    "CHG-001": "Charge/Discharge",
    "VW-001": "Volt-Watt",
    "CVAR-001": "Constant VArs",
    "FPF-001": "Constant Power Factor",
    "VV-001": "Volt-VAr",
}
TITLES = {spec.id: spec.title for spec in CATALOGUE}
SETTLE = 1.5  # the simulated DER ticks every 0.5 s: a stop or start shows within one tick


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


def by_id(report: Report) -> dict[str, CheckResult]:
    return {r.id: r for r in report.results}


# The operating state the model reads from the power it measures (BI18 idle, BI19
# generating, BI20 charging) moves on its own: a started DER is at 0 W at its first tick
# and ramps toward its aim from the next, so BI18 gives way to BI19 0.5 s in, whatever a
# check did. What a check could leave changed shows in the outputs and in BI14/BI15 and
# BI21/BI22, which follow the settings.
MEASURED_STATE = {("bi", P.IDLE), ("bi", P.GENERATING), ("bi", P.CHARGING)}


def snapshot(device: SimulatedDer) -> dict[str, object]:
    """What the checks may change: every output and binary input (less the operating state
    read from the measured power), the stored curves and the curve shown."""
    db = device.database
    found: dict[str, object] = {}
    for point_type in ("bo", "ao", "bi"):
        for index in db.indices(point_type):  # type: ignore[arg-type]
            if (point_type, index) in MEASURED_STATE:
                continue
            stored = db.get(point_type, index)  # type: ignore[arg-type]
            found[f"{point_type}{index}"] = (stored.value, stored.flags)
    assert device.curves is not None
    found["curves"] = {n: dataclasses.astuple(c) for n, c in device.curves.curves.items()}
    found["selected"] = device.curves.selected
    return found


async def run(s: Setup, checks: list[str], **options: object) -> Report:
    return await evaluate(s.master, NAME, Options(checks, settle=SETTLE, **options))  # type: ignore[arg-type]


async def test_the_simulated_der_passes_every_check_that_writes_and_is_left_as_found(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with simulated() as s:
        await asyncio.sleep(0.6)  # a tick: the model has published its state
        before = snapshot(s.device)
        started = time.monotonic()
        report = await run(s, SERVICE + MODES)
        seconds = time.monotonic() - started
        await asyncio.sleep(0.6)  # a start completes on the next tick
        after = snapshot(s.device)
    results = by_id(report)
    applicable = [r for r in report.results if r.verdict != "not_applicable"]
    assert {r.verdict for r in applicable} == {"passed"}, applicable
    assert {r.id for r in applicable} == {*SERVICE, *SUPPORTED, "WV-001"}
    # The titles are the catalogue's; what this DER supports, and the tables' name of each
    # function, is said in the detail of the pass.
    for id, name in SUPPORTED.items():
        assert results[id].title == TITLES[id]
        assert results[id].detail.startswith(f"reports {name} supported (BI"), results[id]
        assert " written and read back: value set 1 disabled (offline)" in results[id].detail
    assert results["FPF-001"].title == "Fixed Power Factor (BO28)"  # the tables: "Constant"
    assert results["WV-001"].title == "Watt-VAr (BO30)"
    assert results["WV-001"].detail == (
        "reports Watt-VAr unsupported (BI49 off) and acts so: enabling it (BO30) refused "
        "NOT_SUPPORTED, none of its 18 other points served"
    )
    assert results["VRT-001"].detail == "no function of the tables is enabled by BO12"
    assert results["VRT-001"].title == "Voltage Ride-Through (BO12)"
    assert "found started: stopped within " in results["SERV-001"].detail
    assert results["SERV-001.2"].detail.startswith(
        "stopped, with BO3 (Grant permission to start) withdrawn: the start (BO1 on) refused "
        "BLOCKED, BI12 off; 1.5 s later still stopped (BI14 off, BI15 on)"
    )
    assert "AO16-AO17 not served: no setting written" in results["CONN-001"].notes
    assert "found started" in results["SERV-001"].notes
    assert changed(before, after) == {}
    assert seconds < 30, seconds  # two waits of min(settle, 3 s) and a few ticks
    # Every control a check sent was logged as a command naming the check.
    commands = [r.getMessage() for r in caplog.records if r.getMessage().startswith("command")]
    for id in [*SERVICE, *SUPPORTED, "WV-001"]:
        assert any(m.startswith(f"command of evaluation check {id}: ") for m in commands), id


def changed(before: dict[str, object], after: dict[str, object]) -> dict[str, object]:
    return {
        k: (before.get(k), after.get(k))
        for k in before.keys() | after.keys()
        if before.get(k) != after.get(k)
    }


async def test_a_function_whose_inputs_keep_online_when_disabled_fails_its_mode_check() -> None:
    device = SimulatedDer(misbehave=frozenset({"inputs_online_when_disabled"}))
    async with simulated(device=device) as s:
        report = await run(s, ["APL-001", "VV-001", "WV-001"])
    results = by_id(report)
    apl = results["APL-001"]
    assert apl.verdict == "failed"
    assert apl.detail.startswith(
        "Active Power Limit disabled, its inputs: AI142 is not offline: flags ONLINE; "
    )
    assert results["VV-001"].verdict == "failed"
    assert "AI297 is not offline: flags ONLINE" in results["VV-001"].detail
    assert results["WV-001"].verdict == "passed"  # not supported: it has no inputs to flag


async def test_a_start_accepted_without_permission_fails_serv_001_2() -> None:
    device = SimulatedDer(misbehave=frozenset({"start_without_permission"}))
    async with simulated(device=device) as s:
        report = await run(s, ["SERV-001.2", "SERV-001.3"])
        await asyncio.sleep(0.6)
        assert s.device.database.get("bi", 14).value is True  # started again, as found
        assert s.device.database.get("bo", 3).value is True  # permission granted, as found
    results = by_id(report)
    assert results["SERV-001.2"].verdict == "failed"
    assert results["SERV-001.2"].detail == (
        "the start (BO1 on) without permission was accepted (BO1 SUCCESS)"
    )
    assert results["SERV-001.3"].verdict == "passed"


class Ignores(SimulatedDer):
    """Accepts a control of the binary (``bo``) or analog (``ao``) outputs named but does
    nothing with it."""

    def __init__(self, *ignored: tuple[str, int]) -> None:
        super().__init__()
        self.ignored = set(ignored)

    def control(self, command: Command, mode: Mode, now: float) -> CommandStatus:
        kind = "bo" if isinstance(command, BinaryCommand) else "ao"
        if (kind, command.index) in self.ignored:
            return CommandStatus.SUCCESS
        return super().control(command, mode, now)


async def test_a_switch_whose_mirror_does_not_follow_fails_conn_001() -> None:
    async with simulated(device=Ignores(("bo", 5))) as s:
        report = await run(s, ["CONN-001"])
    result = report.results[0]
    assert result.verdict == "failed"
    assert result.detail == (
        "the connect/disconnect switch: after BO5 latched off: BI23 (Connect/disconnect "
        "switch closed) is True, not False"
    )


async def test_a_stop_that_does_not_stop_fails_serv_001() -> None:
    async with simulated(device=Ignores(("bo", 2))) as s:
        report = await run(s, ["SERV-001"])
    result = report.results[0]
    assert result.verdict == "failed"
    assert result.detail == (
        "after the stop (BO2 on): BI15 (Stopped (ceased to energize)) is False, not True; "
        "BI14 (Started (in service)) is True, not False; BI13 (Stopping (ceasing to "
        "energize)) is False, not True"
    )


async def test_a_setting_not_taken_fails_its_mode_check_naming_the_readback() -> None:
    async with simulated(device=Ignores(("ao", 82))) as s:
        report = await run(s, ["APL-001"])
    result = report.results[0]
    assert result.verdict == "failed"
    assert result.detail == (
        "Active Power Limit disabled, value set 1: AI142 reads 0, not 200 (within 0.5) as "
        "written to AO82 (200 transmitted)"
    )


async def test_not_applicable_without_the_points_a_check_needs() -> None:
    served = without(demo_map(), "BO5", "BI23", "BO3", "BI16")
    # A DER that serves no supports input for active power limit (BI36).
    no_supports = PointMap(
        [p for p in served.points if str(p.address) != "BI36"],
        title=served.title,
        functions=[f for f in served.functions if f.enable != 17],
        curve_block=served.curve_block,
    )
    device = SimulatedDer(no_supports)
    async with simulated(device=device) as s:
        report = await run(s, ["CONN-001", "SERV-001", "SERV-001.2", "APL-001"])
    results = by_id(report)
    assert {r.verdict for r in report.results} == {"not_applicable"}
    assert "BO5 (the connect/disconnect switch)" in results["CONN-001"].detail
    assert results["SERV-001"].detail == "BO3 not served"
    assert results["APL-001"].detail == (
        "Active Power Limit: its supports input (BI36) is not served"
    )
    assert results["APL-001"].title == "Active Power Limit (BO17)"


def _marked(point_map: PointMap, address: str, enable: int) -> PointMap:
    """The map with the point at ``address`` marked as a point of the function enabled by
    ``enable`` (what the master's profile says, not what the DER does)."""
    target = Address.parse(address)
    points = [
        dataclasses.replace(p, enable=enable) if p.address == target else p
        for p in point_map.points
    ]
    return PointMap(
        points,
        title=point_map.title,
        functions=point_map.functions,
        curve_block=point_map.curve_block,
    )


async def test_an_unsupported_function_with_a_point_served_fails() -> None:
    # The profile says AI9 (served) belongs to watt-var, which the DER does not support.
    profile = _marked(demo_map(), "AI9", 30)
    async with simulated(point_map=profile) as s:
        report = await run(s, ["WV-001"])
    result = report.results[0]
    assert (result.verdict, result.title) == ("failed", "Watt-VAr (BO30)")
    assert result.detail == (
        "Watt-VAr is not supported (BI49), yet 1 of its points are served: AI9"
    )


def _with_option(point_map: PointMap) -> PointMap:
    """The map with a binary output of volt-var's own (BO40, mirrored by BI140)."""
    extra = [
        Point(Kind.BO, 40, "Volt-VAr option", associated=Address(Kind.BI, 140), enable=29),
        Point(Kind.BI, 140, "Volt-VAr option", associated=Address(Kind.BO, 40), enable=29),
    ]
    return PointMap(
        [*point_map.points, *extra],
        title=point_map.title,
        functions=point_map.functions,
        curve_block=point_map.curve_block,
    )


async def test_a_functions_other_outputs_are_latched_and_mirrored_in_each_set(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    point_map = _with_option(demo_map())
    async with simulated(device=SimulatedDer(point_map), point_map=point_map) as s:
        report = await run(s, ["VV-001"])
        assert s.device.database.get("bo", 40).value is False  # put back as found
    result = report.results[0]
    assert result.verdict == "passed", result
    operated = [r.getMessage() for r in caplog.records if ": operate on der {" in r.getMessage()]
    latched = [m for m in operated if '["bo",40,' in m]
    # Set 0 latches it off, set 1 on (each with the settings), then it is put back off.
    assert [('["bo",40,true' in m) for m in latched] == [False, True, False]


async def test_fewer_curves_than_samples_share_one_curve_and_are_put_back() -> None:
    async with simulated() as s:
        before = snapshot(s.device)
        report = await run(s, ["VV-001"], curves=1)
        after = snapshot(s.device)
    result = report.results[0]
    assert result.verdict == "passed", result
    assert any("value sets 0 and 1 name one curve" in note for note in result.notes)
    assert changed(before, after) == {}


def test_value_sets_stay_within_the_tables_range() -> None:
    narrow = Point(Kind.AO, 4, "x", minimum=1, maximum=2)
    assert value_sets(narrow) == (2, 2)  # the test values 2 and 3, the second brought in
    wide = Point(Kind.AO, 88, "x", minimum=0, maximum=1000)
    assert value_sets(wide) == (100, 200)
    assert value_sets(Point(Kind.BO, 5, "x")) == (False, True)
    named = (EnumValue(0, "off"), EnumValue(5, "half"), EnumValue(10, "full"))
    enumerated = Point(Kind.AO, 9, "x", minimum=0, maximum=10, enumeration=named)
    assert value_sets(enumerated) == (0, 5)  # the test values 2 and 5, 2 brought to 0
