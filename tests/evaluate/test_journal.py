"""The restore journal (gridwire.evaluate.journal) in a run against the simulated DER in
process: what a check changes and forgets to put back is put back from the journal, a curve
of the curve block by selecting it (the selector then back as found), and the file holds each
point as found before the control that changes it leaves."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from gridwire.der.functions import CURVE_FIRST_X
from gridwire.derops.curve import selector_control, window_control
from gridwire.errors import RequestError
from gridwire.evaluate import Options, evaluate, evaluations_of
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.primitives import accepted
from gridwire.master.controls import Control
from tests.derops.simulated import NAME, simulated
from tests.evaluate.fake_checks import install


def journals(folder: Path) -> list[Path]:
    return list(folder.glob("journal-*.json"))


def journal_entries(folder: Path) -> list[dict[str, object]]:
    entries = json.loads(journals(folder)[0].read_text())["entries"]
    assert isinstance(entries, list)
    return entries


async def _curve(ctx: CheckContext, number: int) -> list[list[object]]:
    curve = await ctx.der.curve(number)
    return curve.points


async def test_what_a_check_forgot_is_put_back_from_the_journal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, object] = {}

    async def forgets(ctx: CheckContext) -> None:
        block = ctx.point_map.curve_block
        assert block is not None
        shown = await ctx.read([ctx.point_map.get("AI", block.readback)])  # type: ignore[list-item]
        seen["shown"] = next(iter(shown.values())).raw  # before der.curve(2) selects curve 2
        seen["curve 2"] = await _curve(ctx, 2)
        seen["BO29"] = next(iter((await ctx.read([ctx.point("BO29")])).values())).raw  # type: ignore[list-item]
        control = window_control(ctx.point_map, CURVE_FIRST_X, 1001, "X1")
        accepted(
            await ctx.master.operate_controls(ctx.outstation, [selector_control(ctx.point_map, 2)]),
            "select 2",
        )
        accepted(await ctx.master.operate_controls(ctx.outstation, [control]), "X1 of curve 2")
        accepted(
            await ctx.master.operate_controls(
                ctx.outstation, [Control("bo", 29, not seen["BO29"])]
            ),
            "BO29",
        )
        entries = journal_entries(tmp_path / "state")
        seen["entries"] = entries
        assert (await _curve(ctx, 2))[0][0] == 1001  # changed, and left so by the check

    install(monkeypatch, {"VV-001": forgets})
    async with simulated() as s:
        report = await evaluate(s.master, NAME, Options(["VV-001"]), state_dir=tmp_path / "state")
        result = report.results[0]
        assert result.verdict == "passed", result
        assert report.left_changed == []
        assert not journals(tmp_path / "state")
        entries = seen["entries"]
        assert isinstance(entries, list)
        selector = next(e for e in entries if e["selector"] is None and e["type"] == "ao")
        window = next(e for e in entries if e["selector"] == 2)
        assert selector["as_found"] == seen["shown"]
        assert window["as_found"] == seen["curve 2"][0][0]  # type: ignore[index]
        assert {
            "type": "bo",
            "index": 29,
            "as_found": seen["BO29"],
            "variation": None,
            "selector": None,
        } in entries
        after = await s.der.curve()
        assert after.number == seen["shown"]  # the selector back as found
        assert (await s.der.curve(2)).points == seen["curve 2"]


async def test_a_journal_left_refuses_the_run(tmp_path: Path) -> None:
    async with simulated() as s:
        settings = s.master.session(NAME).settings
        path = tmp_path / f"journal-127.0.0.1-{settings.port}-1024.json"
        path.write_text('{"entries": []}')
        with pytest.raises(RequestError, match="a restore journal is left"):
            await evaluate(s.master, NAME, Options(["MON-001"]), state_dir=tmp_path)


async def test_stop_all_stops_the_check_and_waits_for_its_restores(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Evaluations.stop_all (what a service that stops calls): the check under way ends
    not run and interrupted, what it changed is put back before stop_all returns, and the
    checks after it are not run, interrupted."""
    latched = asyncio.Event()

    async def latches_and_waits(ctx: CheckContext) -> None:
        result = await ctx.master.operate_controls(ctx.outstation, [Control("bo", 29, True)])
        accepted(result, "BO29 on")
        latched.set()
        await asyncio.sleep(60)

    install(monkeypatch, {"VV-001": latches_and_waits})
    async with simulated() as s:
        found = (await s.der.read(["BO29"])).points[0].raw
        evaluations = evaluations_of(s.master)
        run = asyncio.ensure_future(
            evaluations.evaluate(NAME, Options(["VV-001", "WV-001"]), state_dir=tmp_path)
        )
        await asyncio.wait_for(latched.wait(), 10)
        # the master is held by the check: the journal file shows what it changed
        entries = journal_entries(tmp_path)
        assert entries[0] | {"as_found": found} == entries[0]
        await asyncio.wait_for(evaluations.stop_all(), 10)
        assert (await s.der.read(["BO29"])).points[0].raw == found  # put back already
        report = await asyncio.wait_for(run, 5)
        vv, wv = report.results
        assert (vv.verdict, vv.interrupted, wv.verdict, wv.interrupted) == (
            "not_run", True, "not_run", True,
        )  # fmt: skip
        assert report.summary.incomplete and report.left_changed == []
        assert (await s.der.read(["BO29"])).points[0].raw == found
        assert not journals(tmp_path)


async def test_another_callers_control_is_not_journaled(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A control another caller sends while a check runs waits for it to end, and is its
    own: the journal of the run does not put it back at the next check's end."""
    latched, go_on = asyncio.Event(), asyncio.Event()

    async def latches(ctx: CheckContext) -> None:
        accepted(
            await ctx.master.operate_controls(ctx.outstation, [Control("bo", 29, True)]), "BO29"
        )
        latched.set()
        await go_on.wait()

    async def nothing(ctx: CheckContext) -> None:
        await asyncio.sleep(0.2)

    install(monkeypatch, {"VV-001": latches, "WV-001": nothing})
    async with simulated() as s:
        before = {p.address: p.raw for p in (await s.der.read(["BO29", "BO28"])).points}
        assert before == {"BO29": False, "BO28": False}
        run = asyncio.ensure_future(
            evaluate(s.master, NAME, Options(["VV-001", "WV-001"]), state_dir=tmp_path)
        )
        await asyncio.wait_for(latched.wait(), 10)
        other = asyncio.ensure_future(s.master.operate_controls(NAME, [Control("bo", 28, True)]))
        await asyncio.sleep(0.2)
        assert not other.done()  # held by the check
        go_on.set()
        accepted(await asyncio.wait_for(other, 10), "BO28 by another caller")
        report = await asyncio.wait_for(run, 10)
        assert report.left_changed == [] and not journals(tmp_path)
        after = {p.address: p.raw for p in (await s.der.read(["BO29", "BO28"])).points}
        assert after == {"BO29": False, "BO28": True}


async def test_the_connection_gone_for_good_leaves_it_listed_and_journaled(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async def latches_then_loses(ctx: CheckContext) -> None:
        accepted(
            await ctx.master.operate_controls(ctx.outstation, [Control("bo", 29, True)]), "BO29"
        )
        await ctx.master.disconnect(ctx.outstation)  # and no reconnection

    install(monkeypatch, {"VV-001": latches_then_loses})
    async with simulated() as s:
        options = Options(["VV-001", "WV-001"], restore_wait=0.5)
        report = await evaluate(s.master, NAME, options, state_dir=tmp_path)
        vv, wv = report.results
        assert vv.verdict == "failed" and vv.detail.endswith("not put back: BO29"), vv
        assert (wv.verdict, wv.interrupted) == ("not_run", True)
        assert report.left_changed == [{"point": "BO29", "as_found": False, "now": None}]
        assert report.summary.incomplete
        assert journal_entries(tmp_path) == [
            {"type": "bo", "index": 29, "as_found": False, "variation": None, "selector": None}
        ]
