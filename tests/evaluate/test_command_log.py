"""The command log (D131): each command is one structured record, written once by whoever
opened it outermost, naming the evaluation check that sent it; against gridwire's simulated
DER over TCP, plus the record's rules on their own (nesting, refusal, error, cancellation)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from gridwire.derops.enable import der_enable
from gridwire.derops.profile import point_map_of
from gridwire.errors import NotAllowed, RequestError
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.primitives import accepted
from gridwire.master import command_log, gate
from gridwire.master.command_log import Command, command
from gridwire.master.controls import Control
from tests.derops.simulated import NAME, simulated
from tests.evaluate.fake_checks import install

LOGGER = "gridwire.commands"


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


def records(caplog: pytest.LogCaptureFixture) -> list[tuple[logging.LogRecord, Command]]:
    found = [(r, getattr(r, "command", None)) for r in caplog.records if r.name == LOGGER]
    assert all(isinstance(c, Command) for _, c in found)
    return [(r, c) for r, c in found if isinstance(c, Command)]


async def test_a_check_s_commands_are_each_one_record_naming_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def enable(ctx: CheckContext) -> None:
        point_map = point_map_of(ctx.master, ctx.outstation)
        # A DER procedure (which operates through the master) and the master's own operate.
        result = await der_enable(ctx.master, ctx.outstation, point_map, "volt-var", True)
        assert result.accepted, result
        accepted(
            await ctx.master.operate_controls(ctx.outstation, [Control("bo", 29, True)]),
            "BO29 on",
        )

        async def back() -> None:
            await der_enable(ctx.master, ctx.outstation, point_map, "volt-var", False)

        ctx.restore("volt-var off", back)

    install(monkeypatch, {"VV-001": enable})
    caplog.set_level(logging.DEBUG)
    async with simulated() as s:
        report = await evaluate(s.master, NAME, Options(["VV-001"]))
        assert report.results[0].verdict == "passed", report.results[0]
        # Outside any evaluation: one record, no check.
        await s.der.write({"AO88": 60})
    logged = records(caplog)
    assert [(c.operation, c.check) for _, c in logged] == [
        ("der.enable", "VV-001"),
        ("operate", "VV-001"),
        ("der.disable", "VV-001"),  # the restore, still under the check
        ("der.write", None),
    ]
    first, record = logged[0]
    assert (record.outstation, record.points) == (NAME, {"function": "volt-var", "mode": "direct"})
    assert record.result is not None and "accepted=True enabled=True" in record.result
    assert first.levelno == logging.INFO
    assert first.getMessage().startswith(
        'command of evaluation check VV-001: der.enable on der {"function":"volt-var"'
    )
    assert logged[3][1].points == {
        "points": {"AO88": 60},
        "verify": False,
        "mode": "direct",
        "variation": None,
    }
    # Nothing else wrote a command line: the master logged none of its own under der.*.
    lines = [r.getMessage() for r in caplog.records if "accepted=" in r.getMessage()]
    assert len(lines) == len(logged)


def test_only_the_outermost_command_is_written(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with command("der.write", "o", {"points": {"AO1": 1}}) as outer:
        with command("operate", "o", {"controls": []}) as inner:
            inner.result = "inner"
        outer.result = "outer"
    [(record, written)] = records(caplog)
    assert written.as_dict() == {
        "operation": "der.write",
        "outstation": "o",
        "points": {"points": {"AO1": 1}},
        "check": None,
        "result": "outer",
        "refused": False,
    }
    assert record.getMessage() == 'command der.write on o {"points":{"AO1":1}}: outer'


def test_a_refusal_an_error_and_a_cancellation_each_end_a_record(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with (
        command_log.sent_by_check("CHK-1"),
        pytest.raises(NotAllowed),
        command("restart", "o\nforged", {"kind": "cold"}),
    ):
        raise gate.refusal()
    with pytest.raises(RequestError), command("freeze", "o", {}):
        raise RequestError("no such thing")
    with pytest.raises(asyncio.CancelledError), command("operate", "o", {}):
        raise asyncio.CancelledError
    (refused, c1), (failed, c2), (cancelled, c3) = records(caplog)
    assert refused.levelno == logging.WARNING and c1.refused and c1.check == "CHK-1"
    assert refused.getMessage() == (
        f'refused restart on \'o\\nforged\' {{"kind":"cold"}}: {gate.NOT_ALLOWED}'
    )
    assert failed.getMessage() == "command freeze on o {}: error request: no such thing"
    assert c2.check is None
    assert cancelled.getMessage() == f"command operate on o {{}}: {command_log.CANCELLED}"
    assert c3.result == command_log.CANCELLED
