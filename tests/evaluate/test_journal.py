"""The restore journal (gridwire.evaluate.journal) in a run against the simulated DER in
process: what a check changes and forgets to put back is put back from the journal, a curve
of the curve block by selecting it (the selector then back as found), and the file holds each
point as found before the control that changes it leaves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.der.functions import CURVE_FIRST_X
from gridwire.derops.curve import selector_control, window_control
from gridwire.errors import RequestError
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.primitives import accepted
from gridwire.master.controls import Control
from tests.derops.simulated import NAME, simulated
from tests.evaluate.fake_checks import install


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
        entries = json.loads(next((tmp_path / "state").glob("journal-*.json")).read_text())[
            "entries"
        ]
        seen["entries"] = entries
        assert (await _curve(ctx, 2))[0][0] == 1001  # changed, and left so by the check

    install(monkeypatch, {"VV-001": forgets})
    async with simulated() as s:
        report = await evaluate(s.master, NAME, Options(["VV-001"]), state_dir=tmp_path / "state")
        result = report.results[0]
        assert result.verdict == "passed", result
        assert report.left_changed == []
        assert not list((tmp_path / "state").glob("journal-*"))
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
