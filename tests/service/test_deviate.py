"""``deviate`` says who turned what on (issue 9, item 1): one WARNING per deviate naming the
client (the HTTP or line client's own address, ``python`` for the Python API), what it turned
on and off and what is on after it; and ``status`` shows the deviations on."""

from __future__ import annotations

import logging
import re

import pytest

from gridwire.process.caller import PYTHON, caller, on_behalf, peer_name
from tests.master.scripted import ScriptedOutstation
from tests.service.harness import HttpTransport, LineTransport, ok, outstation, running_service

LOGGER = "gridwire.master.deviations"


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == LOGGER and r.levelno == logging.WARNING and "deviate" in r.getMessage()
    ]


async def test_deviate_is_logged_with_the_client_and_shown_in_status(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    async with ScriptedOutstation() as out, running_service() as svc:
        await svc.master.add(outstation(out.port, manual=True, reconnect=None))
        async with HttpTransport(svc) as http, LineTransport(svc) as line:
            assert line.writer is not None
            host, port = line.writer.get_extra_info("sockname")[:2]
            turned = await line.call(
                "deviate", "y", deviations={"repeat_request": True, "late_confirmation": 2.5}
            )
            assert ok(turned) == {"deviations": {"repeat_request": True, "late_confirmation": 2.5}}
            assert warnings(caplog) == [
                f"deviate y by line {host}:{port}: on repeat_request, late_confirmation=2.5; "
                "now on: repeat_request, late_confirmation=2.5"
            ]
            caplog.clear()
            ok(await http.call("deviate", "y", deviations={"repeat_request": False}))
            [logged] = warnings(caplog)
            assert re.fullmatch(
                r"deviate y by http 127\.0\.0\.1:\d+: off repeat_request; "
                r"now on: late_confirmation=2\.5",
                logged,
            ), logged
            for api in (http, line):
                [entry] = ok(await api.call("status"))["outstations"]
                assert entry["deviations"] == {"late_confirmation": 2.5}
        caplog.clear()
        svc.master.deviate("y", {"late_confirmation": None})
        assert warnings(caplog) == ["deviate y by python: off late_confirmation; now on: none"]
        assert svc.master.status().outstations[0].deviations == {}


async def test_a_refused_deviate_changes_nothing_and_logs_no_change(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    async with ScriptedOutstation() as out, running_service() as svc:
        await svc.master.add(outstation(out.port, manual=True, reconnect=None))
        async with LineTransport(svc) as line:
            answer = await line.call("deviate", "y", deviations={"late_confirmation": -1})
            assert answer["ok"] is False and answer["error"]["kind"] == "request"
            [entry] = ok(await line.call("status"))["outstations"]
            assert entry["deviations"] == {}
    assert warnings(caplog) == []


def test_peer_names() -> None:
    assert peer_name("http", ("127.0.0.1", 5123)) == "http 127.0.0.1:5123"
    assert peer_name("line", ("::1", 5124, 0, 0)) == "line [::1]:5124"
    assert peer_name("http", None) == "http (address unknown)"


async def test_the_caller_is_python_outside_a_client_and_restored_after_one() -> None:
    async def who() -> str:
        return caller()

    assert caller() == PYTHON
    assert await on_behalf("line 127.0.0.1:9", who()) == "line 127.0.0.1:9"
    assert caller() == PYTHON
