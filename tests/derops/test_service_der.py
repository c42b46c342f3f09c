"""The der.* operations through the service, over HTTP and the line service, against
gridwire's simulated DER: their results (each HTTP answer checked against the OpenAPI document
the service serves), the refusals, the not_allowed gate and the command log."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from gridwire.operations.table import default_table
from gridwire.outstation import run_outstation
from gridwire.service.config import load_config
from gridwire.service.runner import open_service
from gridwire.simulator import SimulatedDer
from tests.service.harness import (
    Running,
    Transport,
    error,
    ok,
    outstation,
    running_service,
    transport,
)

TRANSPORTS = ["http", "line"]


@contextlib.asynccontextmanager
async def der_service(kind: str, allow_control: bool = True) -> AsyncIterator[Transport]:
    """A service with two simulated DERs: ``der`` added with the profile, ``plain``
    without."""
    async with (
        run_outstation(SimulatedDer(), "127.0.0.1", 0, tick_interval=0.5) as server,
        run_outstation(SimulatedDer(), "127.0.0.1", 0, tick_interval=0.5) as other,
        running_service(
            allow_control=allow_control,
            outstations=[
                outstation(server.port, "der", profile="ieee1815.2"),
                outstation(other.port, "plain"),
            ],
        ) as running,
        transport(kind, running) as api,
    ):
        await running.master.idle("der")
        yield api


def running_of(api: Transport) -> Running:
    return api.running


async def frames(api: Transport) -> int:
    return len(ok(await api.call("trace", "der"))["frames"])


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_every_der_operation(kind: str) -> None:
    async with der_service(kind) as api:
        read = ok(await api.call("der.read", "der", names=["AO88", "ai 537"], group="volt-var"))
        assert [p["address"] for p in read["points"][:2]] == ["AO88", "AI537"]
        assert read["points"][0]["value"] == 100.0 and read["points"][0]["raw"] == 1000
        [exchange] = read["exchanges"]
        assert exchange["function"] == "READ" and exchange["objects"] and exchange["request"]

        written = ok(await api.call("der.write", "der", points={"AO88": 75.5}, verify=True))
        assert (written["accepted"], written["verified"]) == (True, True)
        assert written["operated"] == {"mode": "direct", "operated": True, "accepted": True}
        point = written["points"][0]
        assert (point["sent"], point["sent_value"], point["status"]) == (755, 75.5, "SUCCESS")
        assert point["readback"] == {
            "address": "AI149",
            "value": 75.5,
            "raw": 755,
            "quality": "offline",  # active power limit is disabled: its inputs are offline
            "flags": [],
        }

        enabled = ok(await api.call("der.enable", "der", function="volt-var", mode="select"))
        assert (enabled["enabled"], enabled["status"]["state"]) == (True, "Enabled")
        assert [e["function"] for e in enabled["exchanges"]] == ["SELECT", "OPERATE", "READ"]
        disabled = ok(await api.call("der.disable", "der", function="Volt-VAr"))
        assert disabled["enabled"] is False and disabled["accepted"] is True

        listed = ok(await api.call("der.functions", "der"))
        assert {f["key"] for f in listed["functions"]} >= {"volt-var", "volt-watt"}

        curve = ok(await api.call("der.curve", "der", number=2))
        assert curve["selected"]["accepted"] is True and curve["type_name"] == "Volt-watt"

        stored = ok(
            await api.call(
                "der.write_curve",
                "der",
                number=4,
                type=2,
                x_units=129,
                y_units=2,
                points=[[95, 30], [105.0, -30]],
            )
        )
        assert (stored["accepted"], stored["matches"], stored["stopped_at"]) == (True, True, None)
        assert stored["curve"]["points"] == [[95, 30], [105, -30]]


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_refusals(kind: str) -> None:
    async with der_service(kind) as api:
        before = await frames(api)
        message = error(await api.call("der.write", "der", points={"AO88": 150}), "request")
        assert "150 % is outside the tables' range 0 % to 100 %" in message
        assert await frames(api) == before  # nothing on the wire
        message = error(await api.call("der.write", "der", points={"AO0": 1.7e308}), "request")
        assert "1.7e+308 V is outside the tables' range" in message  # not an OverflowError
        message = error(await api.call("der.read", "der", names="AI537"), "request")
        assert message == "der.read: parameter names: a list of names or addresses, not one string"
        message = error(await api.call("der.read", "der"), "request")
        assert "names" in message and "group" in message
        message = error(await api.call("der.read", "der", names=["nothing here"]), "request")
        assert "no point of the profile is named 'nothing here'" in message
        message = error(await api.call("der.read", "der", names=["AI12", "Weather"]), "request")
        assert "Weather" in message
        message = error(await api.call("der.enable", "der", function="pump"), "request")
        assert "volt-var" in message
        message = error(await api.call("der.write", "der", points={"AI537": 1}), "request")
        assert "AI537 is an input" in message
        message = error(
            await api.call(
                "der.write_curve",
                "der",
                number=4,
                type=2,
                x_units=129,
                y_units=2,
                points=[[1, 2.5]],
            ),
            "request",
        )
        assert "points[0] y" in message and "2.5 is not a whole number" in message
        long_name = "x" * 1025  # a name beyond 1024 characters is refused before any lookup
        message = error(await api.call("der.read", "der", group=long_name), "request")
        assert "group" in message and "1024" in message
        message = error(await api.call("der.write", "der", points={long_name: 1}), "request")
        assert "points" in message and "1024" in message
        many = [f"AI{i}" for i in range(2049)]
        assert "names" in error(await api.call("der.read", "der", names=many), "request")
        message = error(await api.call("der.read", "plain", names=["AI537"]), "request")
        assert "'plain' was given no profile" in message and "ieee1815.2" in message
        assert error(await api.call("der.functions", "nobody"), "request")
        await running_of(api).master.disconnect("der")
        error(await api.call("der.read", "der", names=["AI537"]), "connection")


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_without_allow_control(kind: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with der_service(kind, allow_control=False) as api:
        before = await frames(api)
        commands: list[tuple[str, dict[str, Any]]] = [
            ("der.write", {"points": {"AO88": 50}}),
            ("der.enable", {"function": "volt-var"}),
            ("der.disable", {"function": "volt-var"}),
            ("der.curve", {"number": 2}),
            (
                "der.write_curve",
                {"number": 4, "type": 2, "x_units": 129, "y_units": 2, "points": []},
            ),
        ]
        for name, params in commands:
            error(await api.call(name, "der", **params), "not_allowed")
        # A bad command is a request error first, even here.
        error(await api.call("der.write", "der", points={"AO88": 150}), "request")
        error(await api.call("der.curve", "der", number=0), "request")
        assert await frames(api) == before
        assert ok(await api.call("der.curve", "der"))["number"] == 1
        ok(await api.call("der.read", "der", group="Nameplate"))
        ok(await api.call("der.functions", "der"))
    refused = [
        r for r in caplog.records if r.levelno == logging.WARNING and "refused der." in r.message
    ]
    assert len(refused) == len(commands)
    assert any("AO88" in r.message for r in refused)


async def test_accepted_commands_are_logged_with_points_values_and_result(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with der_service("http") as api:
        ok(await api.call("der.write", "der", points={"AO88": 60}, verify=True))
        ok(await api.call("der.read", "der", names=["AO88"]))
        ok(await api.call("der.enable", "der", function="volt-var"))
        ok(await api.call("der.disable", "der", function="volt-var"))
        ok(await api.call("der.curve", "der", number=2))
        ok(await api.call("der.curve", "der"))
        curve = {"number": 4, "type": 5, "x_units": 129, "y_units": 5, "points": [[100, 90]]}
        ok(await api.call("der.write_curve", "der", **curve))
    logged = [
        r.message
        for r in caplog.records
        if r.name == "gridwire.commands" and r.levelno == logging.INFO
    ]
    [line] = [m for m in logged if m.startswith("command der.write on der")]
    assert '"AO88":60' in line and '"status":"SUCCESS"' in line and '"verified":true' in line
    assert not any(m.startswith("command der.read") for m in logged)  # a read is no command
    commands = [m for m in logged if m.startswith("command der.")]
    assert [m.split(" ")[1] for m in commands] == [
        "der.write",
        "der.enable",
        "der.disable",
        "der.curve",  # with a number only
        "der.write_curve",
    ]
    assert '"function":"volt-var"' in commands[1] and '"enabled":true' in commands[1]
    assert '"number":2' in commands[3] and '"selected":{' in commands[3]
    assert '"points":[[100,90]]' in commands[4] and '"matches":true' in commands[4]
    # Each command once: the DER procedure and the master's operate under it add no record.
    assert logged == commands


def test_the_table_declares_the_der_operations() -> None:
    table = default_table()
    for name in (
        "der.read",
        "der.write",
        "der.enable",
        "der.disable",
        "der.functions",
        "der.curve",
        "der.write_curve",
    ):
        assert name in table
    help_text = table.help_text()
    assert " *der.write " in help_text and " ~der.curve " in help_text
    assert "  der.read " in help_text


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_an_outstation_added_later_with_a_profile_answers_der_operations(kind: str) -> None:
    async with (
        run_outstation(SimulatedDer(), "127.0.0.1", 0, tick_interval=0.5) as server,
        running_service() as running,
        transport(kind, running) as api,
    ):
        ok(
            await api.call(
                "add", name="late", host="127.0.0.1", port=server.port, profile="ieee1815.2"
            )
        )
        read = ok(await api.call("der.read", "late", names=["AI537"]))
        assert read["points"][0]["quality"] == "good"


async def test_a_config_file_outstation_takes_its_profile(tmp_path: Path) -> None:
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0, tick_interval=0.5) as server:
        config = tmp_path / "gridwire.json"
        config.write_bytes(
            orjson.dumps(
                {
                    "outstations": [
                        {
                            "name": "der",
                            "host": "127.0.0.1",
                            "port": server.port,
                            "profile": "ieee1815.2",
                        }
                    ]
                }
            )
        )
        async with open_service(load_config(config)) as service:
            answer = await service.dispatcher.call("der.functions", {"outstation": "der"})
            result = orjson.loads(answer.body)["result"]
            assert {f["key"] for f in result["functions"]} >= {"volt-var"}
