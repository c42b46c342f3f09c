"""The curve checks (family curves: CURVE-001, CURVE-001.2, CURVE-002, CURVE-002.2, CURVE-003,
CURVE-003.2), through the whole run against gridwire's simulated DER over TCP. The simulated
DER passes every one and is left as it was found (its curves, the curve shown, the curve
settings, a function found enabled); made to misbehave (the setting ``gridwire sim`` takes,
``accept_locked_curve_edits``; a referenced indicator that does not follow; a function enabled
on a curve of another type; a selector that refuses otherwise than OUT_OF_RANGE) the matching
check fails with a detail saying what was seen."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gridwire.der.points import Address
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.catalogue import CATALOGUE
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.primitives import curve_count, refused
from gridwire.evaluate.records import CheckResult, Report
from gridwire.master.records import ControlStatus, OperateResult
from gridwire.outstation.controls import AnalogCommand
from gridwire.simulator import CurveStatuses, SimulatedDer
from gridwire.simulator import der as der_module
from tests.derops.simulated import NAME, Setup, simulated
from tests.evaluate.fake_checks import install
from tests.evaluate.test_family_writes import changed, snapshot
from tests.evaluate.test_primitives import context, exchange

CURVES = [spec.id for spec in CATALOGUE if spec.family == "curves"]
SETTLE = 1.0


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


async def run(s: Setup, checks: list[str] | None = None, **options: object) -> Report:
    chosen = Options(checks or CURVES, settle=SETTLE, **options)  # type: ignore[arg-type]
    return await evaluate(s.master, NAME, chosen)


def settled(device: SimulatedDer) -> dict[str, object]:
    """What the curve checks may change (:func:`snapshot`) less the binary inputs the DER's
    model drives (operating states move while volt-watt runs): outputs, curves, the curve
    shown, the enabled inputs of volt-watt and volt-var, the referenced indicator."""
    kept = {"bi77", "bi81", "bi107"}
    return {k: v for k, v in snapshot(device).items() if not k.startswith("bi") or k in kept}


def by_id(report: Report) -> dict[str, CheckResult]:
    return {r.id: r for r in report.results}


def test_the_family_is_the_six_curve_checks() -> None:
    assert CURVES == [
        "CURVE-001",
        "CURVE-001.2",
        "CURVE-002",
        "CURVE-002.2",
        "CURVE-003",
        "CURVE-003.2",
    ]


async def test_the_simulated_der_passes_every_curve_check_and_is_left_as_found() -> None:
    async with simulated() as s:
        enabled = await s.der.enable("volt-watt")  # found enabled, naming curve 2
        assert enabled.enabled is True
        before = settled(s.device)
        assert before["bo25"] == before["bi77"] == (True, 1)  # volt-watt enabled, online
        report = await run(s)
        after = settled(s.device)
    results = by_id(report)
    assert {id: r.verdict for id, r in results.items()} == dict.fromkeys(CURVES, "passed")
    # Each pass says what it verified (D121).
    assert results["CURVE-001"].detail == (
        "BI107 read off with curve 4 shown and no curve named, on once the enabled Volt-Watt "
        "named it, off with curve 3 shown, on with curve 4 shown again, off after the release"
    )
    assert results["CURVE-001.2"].detail.startswith(
        "selecting curve 5 (4 stored) refused OUT_OF_RANGE; AI328 (the selector's mirror) still "
        "reads curve "
    )
    locked = "edits of its type, number of points and units, and its point 1, refused "
    assert f"curve 4 named by the enabled Volt-Watt: {locked}AUTOMATION_INHIBIT" in (
        results["CURVE-002"].detail
    )
    assert results["CURVE-002.2"].detail.startswith(
        "the enabled Volt-Watt moved from curve 4 to 3 (AO173 read back)"
    )
    assert results["CURVE-003"].detail.endswith(
        "then enabling Volt-Watt (BO25) on it refused NOT_SUPPORTED: it stayed disabled"
    )
    assert results["CURVE-003.2"].detail == (
        "naming curve 4, undefined (type 0), with AO173 refused NOT_SUPPORTED; naming curve 5 "
        "(4 stored) with AO173 refused OUT_OF_RANGE; AO173 names none"
    )
    assert changed(before, after) == {}
    assert report.curves == 4  # found by selecting 1 to 5
    assert all(r.requests > 0 and r.frames is not None for r in report.results)
    # The lock refuses with the usual status (AUTOMATION_INHIBIT, D46): nothing to note.
    assert results["CURVE-002"].notes == results["CURVE-002.2"].notes == []
    assert results["CURVE-001"].notes == [
        "BI107 reads True with curve 4 shown, named by Volt-Watt while it is disabled "
        "(either is taken)"
    ]
    assert results["CURVE-003"].notes == [
        "changing the type of curve 4 to 2 while Volt-Watt names it was accepted; enabling "
        "Volt-Watt was then refused, so it does not run on a curve of another type"
    ]
    assert results["CURVE-001.2"].notes == results["CURVE-003.2"].notes == []


async def test_a_der_that_does_not_keep_the_curve_lock_fails_curve_002_saying_what_was_seen() -> (
    None
):
    device = SimulatedDer(misbehave=frozenset({"accept_locked_curve_edits"}))
    async with simulated(device=device) as s:
        before = settled(s.device)
        report = await run(s)
        after = settled(s.device)
    results = by_id(report)
    verdicts = {id: r.verdict for id, r in results.items()}
    assert verdicts == {id: "passed" for id in CURVES} | {
        "CURVE-002": "failed",
        "CURVE-002.2": "failed",
    }
    assert results["CURVE-002"].detail == (
        "editing the type, number of points and units of curve 4 (named by the enabled "
        "Volt-Watt function) was accepted (AO245 SUCCESS)"
    )
    assert results["CURVE-002.2"].detail == (
        "editing the type, number of points and units of curve 3 (named by the enabled "
        "Volt-Watt function since the move) was accepted (AO245 SUCCESS)"
    )
    # The edits that were accepted are undone too: every curve is put back as it was read.
    assert changed(before, after) == {}
    assert all(not note.startswith("restore failed") for r in report.results for note in r.notes)


def indicator_stuck(device: SimulatedDer) -> None:
    """BI107 stays as it started (true) whatever is named and shown."""
    device._refresh_referenced = lambda now, initial=False: None  # type: ignore[method-assign]


def enables_on_any_curve(device: SimulatedDer) -> None:
    """A function is enabled whatever its curve setting names."""
    device._refuse_enable = lambda function: None  # type: ignore[method-assign]


@pytest.mark.parametrize(
    ("broken", "check", "detail"),
    [
        (
            indicator_stuck,
            "CURVE-001",
            "curve 4 shown, no curve setting naming a curve: BI107 (Selected curve is "
            "referenced by a function) is True, not False",
        ),
        (
            enables_on_any_curve,
            "CURVE-003",
            "changing the type of curve 4 to 2 while Volt-Watt names it was accepted; then "
            "enabling Volt-Watt (BO25) on it was accepted (BO25 SUCCESS)",
        ),
    ],
)
async def test_a_der_breaking_a_curve_rule_fails_the_check_saying_what_was_seen(
    broken: Callable[[SimulatedDer], None], check: str, detail: str
) -> None:
    device = SimulatedDer()
    broken(device)
    async with simulated(device=device) as s:
        report = await run(s, [check])
    result = report.results[0]
    assert (result.verdict, result.detail) == ("failed", detail)
    if check == "CURVE-001":
        assert result.seconds >= SETTLE - 0.5  # retried every 0.5 s until settle


async def test_counting_the_curves_leaves_the_curve_shown_as_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counted: list[int] = []

    async def counts(ctx: CheckContext) -> None:
        counted.append(await curve_count(ctx))

    install(monkeypatch, {"CURVE-001": counts})
    async with simulated() as s:
        assert s.device.curves is not None
        shown = AnalogCommand(244, 2, 1)  # the selector: curve 2 shown, not the last counted
        assert s.device.control(shown, "direct", 1.0) is CommandStatus.SUCCESS
        report = await run(s, ["CURVE-001"])
        selected = s.device.curves.selected
        readback = s.device.database.get("ai", 328).value
    assert counted == [4] and report.results[0].verdict == "passed"
    assert (selected, readback) == (2, 2)  # selected 1-4, 5 refused, then 2 again
    assert report.results[0].notes == []


async def test_a_curve_count_given_too_low_fails_curve_001_2() -> None:
    async with simulated() as s:
        report = await run(s, ["CURVE-001.2", "CURVE-003.2"], curves=2)
    results = by_id(report)
    assert results["CURVE-001.2"].verdict == "failed"
    assert results["CURVE-001.2"].detail == (
        "selecting curve 3 (2 stored) was accepted (AO244 SUCCESS)"
    )
    # Curve 3 is stored, of a type volt-watt does not take: refused, not as beyond the count.
    assert results["CURVE-003.2"].verdict == "passed"
    assert results["CURVE-003.2"].notes == [
        "naming curve 3 (2 stored) with AO173 was refused NOT_SUPPORTED, not OUT_OF_RANGE"
    ]


async def test_a_selector_refusing_otherwise_than_out_of_range_fails_every_curve_check() -> None:
    statuses = CurveStatuses(no_such_curve=CommandStatus.NOT_SUPPORTED)
    async with simulated(device=SimulatedDer(curve_statuses=statuses)) as s:
        report = await run(s)
        given = await run(s, ["CURVE-001.2", "CURVE-003.2"], curves=4)
    problem = (
        "selecting curve 5 was refused NOT_SUPPORTED, not OUT_OF_RANGE: how many curves the "
        "outstation stores cannot be told"
    )
    assert {(r.verdict, r.detail) for r in report.results} == {("failed", problem)}
    assert report.curves is None
    # With the count given, the refusals pass, each noting its status.
    results = by_id(given)
    assert [r.verdict for r in given.results] == ["passed", "passed"]
    assert results["CURVE-001.2"].notes == [
        "selecting curve 5 (4 stored) was refused NOT_SUPPORTED, not OUT_OF_RANGE"
    ]
    assert results["CURVE-003.2"].notes == [
        "naming curve 5 (4 stored) with AO173 was refused NOT_SUPPORTED, not OUT_OF_RANGE"
    ]


def not_serving(monkeypatch: pytest.MonkeyPatch, *addresses: str) -> SimulatedDer:
    """The simulated DER with the demo map, serving none of ``addresses`` (the master's
    profile still lists them)."""
    gone = {(a.kind, a.index) for a in map(Address.parse, addresses) if a is not None}
    unserved = der_module.unserved_points
    monkeypatch.setattr(der_module, "unserved_points", lambda m: unserved(m) | gone)
    return SimulatedDer()


@pytest.mark.parametrize(
    ("missing", "reason"),
    [
        (("BI107",), "the referenced indicator BI107 is not served"),
        (("AO173", "AO217"), "no curve setting with sample curves (AO173, AO217) is served"),
        (("AI400", "AO300"), "the curve block is not served whole: AO300, AI400 not served"),
    ],
)
async def test_not_applicable_without_the_curve_block_the_indicator_or_a_sample_setting(
    monkeypatch: pytest.MonkeyPatch, missing: tuple[str, ...], reason: str
) -> None:
    async with simulated(device=not_serving(monkeypatch, *missing)) as s:
        report = await run(s)
    assert {(r.verdict, r.detail) for r in report.results} == {("not_applicable", reason)}


async def test_too_few_curves_are_not_applicable_and_the_volt_var_setting_serves_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with simulated(device=not_serving(monkeypatch, "AO173", "AI248")) as s:
        report = await run(s, curves=1)
    results = by_id(report)
    needs_two = "the outstation stores 1 curve(s); the check needs 2"
    assert {id: (r.verdict, r.detail) for id, r in results.items()} == {
        "CURVE-001": ("not_applicable", needs_two),
        "CURVE-001.2": ("failed", "selecting curve 2 (1 stored) was accepted (AO244 SUCCESS)"),
        "CURVE-002": ("not_applicable", needs_two),
        "CURVE-002.2": ("not_applicable", needs_two),
        "CURVE-003": ("not_applicable", needs_two),
        "CURVE-003.2": (
            "passed",
            "naming curve 1, undefined (type 0), with AO217 refused NOT_SUPPORTED; naming curve "
            "2 (1 stored) with AO217 refused NOT_SUPPORTED; AO217 names none",
        ),
    }
    # Curve 2 is stored, of a type volt-var does not take: refused, but not as beyond the count.
    assert results["CURVE-003.2"].notes == [
        "naming curve 2 (1 stored) with AO217 was refused NOT_SUPPORTED, not OUT_OF_RANGE"
    ]


def test_a_refusal_of_several_controls_is_noted_once_per_status() -> None:
    ctx = context()
    statuses = [
        ControlStatus("ao", index, None, 1, 0, status, True)
        for index, status in ((245, "BLOCKED"), (246, "BLOCKED"), (247, "LOCAL"))
    ]
    result = OperateResult("direct", True, False, statuses, [exchange("complete")])
    refused(ctx, result, "editing curve 4", "AUTOMATION_INHIBIT")
    assert ctx.notes == [
        "editing curve 4 was refused BLOCKED, not AUTOMATION_INHIBIT",
        "editing curve 4 was refused LOCAL, not AUTOMATION_INHIBIT",
    ]
