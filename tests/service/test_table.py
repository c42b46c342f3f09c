"""Adding an operation is declaring it: one declaration joined to the table, and nothing
else, makes it a route, a message of the line service, a path of the OpenAPI document, a
line of the help, and a command the gate refuses without --allow-control (as wave 2's der.*,
checks and evaluate will be added)."""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass

import pytest
from pydantic import Field

from gridwire.errors import RequestError
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OperationTable, OutstationParams, declare
from gridwire.operations.table import default_table
from tests.service.harness import HttpTransport, LineTransport, error, ok, running_service


class EchoParams(OutstationParams):
    text: str = Field(description="What to say back")
    loud: bool = Field(default=False, description="Shout: counts as a command")


@dataclass(slots=True)
class Echo:
    outstation: str
    text: str


def echo(context: Context, params: EchoParams) -> Echo:
    context.master.status()  # it may call the master like any other
    if params.text == "fail":
        raise RequestError("echo: told to fail")
    text = params.text.upper() if params.loud else params.text
    return Echo(params.outstation, text)


ECHO = declare(
    "test.echo",
    params=EchoParams,
    result=Echo,
    handler=echo,
    commands=lambda p: p.loud,
    summary="Say the text back",
)


def extended() -> OperationTable:
    return default_table().extended([ECHO])


async def test_a_declared_operation_is_served_everywhere(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="gridwire.commands")
    async with (
        running_service(table=extended()) as running,
        HttpTransport(running) as http,
        LineTransport(running) as line,
    ):
        document = http.documented
        assert document is not None
        assert "/api/test.echo" in document.document["paths"]
        status, body = await http.post("test.echo", outstation="o", text="hi")
        assert status == 200 and ok(body) == {"outstation": "o", "text": "hi"}
        assert ok(await line.call("test.echo", "o", text="hi")) == {
            "outstation": "o",
            "text": "hi",
        }
        message = await http.client.post(
            "/api", json={"op": "test.echo", "outstation": "o", "params": {"text": "x"}}
        )
        assert message.json()["result"]["text"] == "x"
        status, body = await http.post("test.echo", outstation="o", text="hi", loud=True)
        assert status == 403 and "--allow-control" in error(body, "not_allowed")
        status, body = await http.post("test.echo", outstation="o", text=3)
        assert status == 400 and "parameter text" in error(body, "request")
        assert error(await line.call("test.echo", "o", text="fail"), "request") == (
            "echo: told to fail"
        )
    assert any(
        r.levelno == logging.WARNING and "test.echo" in r.getMessage() for r in caplog.records
    )
    async with (
        running_service(table=extended(), allow_control=True) as running,
        HttpTransport(running) as http,
    ):
        status, body = await http.post("test.echo", outstation="o", text="hi", loud=True)
        assert status == 200 and ok(body)["text"] == "HI"
    commands = [r.getMessage() for r in caplog.records if r.getMessage().startswith("command ")]
    assert commands == [
        'command test.echo on o {"text":"hi","loud":true}: {"outstation":"o","text":"HI"}'
    ]


def test_the_help_lists_every_operation_with_its_summary() -> None:
    for command in ("serve", "console"):
        shown = subprocess.run(
            [sys.executable, "-m", "gridwire", command, "--help"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        for op in default_table():
            line = next(t for t in shown.splitlines() if t[2:].startswith(op.name + " "))
            assert line.rstrip().endswith(op.summary), line
            assert line[1] == ("*" if op.commands is True else "~" if op.may_command else " ")
    assert ECHO.name in extended().help_text()


def test_declarations_are_checked() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        default_table().extended([ECHO, ECHO])
    with pytest.raises(ValueError, match="lower_case"):
        Operation("Echo", EchoParams, Echo, echo, "s")
    with pytest.raises(ValueError, match="no summary"):
        Operation("echo", EchoParams, Echo, echo, " ")
    assert ECHO.target == "required" and ECHO.may_command
