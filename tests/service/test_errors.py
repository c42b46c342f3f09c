"""Each error kind over both transports, with the HTTP status codes chosen for them, and the
gate: without --allow-control nothing that commands reaches the outstation (yadnp3 says what
it received), the refusal is logged at WARNING, and a command carried out at INFO with its
points, values and result."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.service.harness import (
    HttpTransport,
    error,
    ok,
    outstation,
    running_service,
)
from tests.service.harness import transport as open_transport
from tests.support.net import free_port
from tests.support.peers import yadnp3_outstation

TRANSPORTS = ["http", "line"]


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_request_errors_name_what_is_wrong(kind: str) -> None:
    async with running_service() as running, open_transport(kind, running) as api:
        assert error(await api.call("nope"), "request") == "unknown operation 'nope'"
        ghost = error(await api.call("scan", "ghost", kind="integrity"), "request")
        assert "unknown outstation 'ghost'" in ghost
        wrong = error(await api.call("scan", "ghost", kind=5), "request")
        assert wrong.startswith("scan: parameter kind:")
        missing = error(await api.call("scan", "ghost"), "request")
        assert missing == "scan: parameter kind is missing"
        extra = error(await api.call("trace", "ghost", colour="red"), "request")
        assert extra == "trace: unknown parameter colour"
        nested = error(await api.call("read", "ghost", points={"ai": [1, True]}), "request")
        assert nested.startswith("read: parameter points.ai.1:")
        timeout = error(await api.call("wait_for", "ghost", timeout="soon", event={}), "request")
        assert timeout.startswith("wait_for: parameter timeout:")
        # A number where a string is wanted is the wrong kind too (no coercion).
        assert "parameter function" in error(
            await api.call("request", "ghost", function=1), "request"
        )


async def test_http_status_codes_by_kind() -> None:
    async with running_service() as running, HttpTransport(running) as http:
        status, body = await http.post("scan", outstation="ghost", kind="integrity")
        assert (status, body["id"], body["error"]["kind"]) == (400, None, "request")
        status, body = await http.post("operate", outstation="ghost", points={"bo": {"0": True}})
        assert (status, body["error"]["kind"]) == (403, "not_allowed")
        nobody = free_port()
        status, body = await http.post("add", name="down", host="127.0.0.1", port=nobody)
        assert (status, body["error"]["kind"]) == (503, "connection")
        # The outstation stays added, disconnected, and asking over it is a connection error.
        status, body = await http.post("scan", outstation="down", kind="class0")
        assert (status, body["error"]["kind"]) == (503, "connection")
        status, body = await http.post("connect", outstation="down", wait=1.5)
        assert (status, body["error"]["kind"]) == (503, "connection")
        # The message form answers with the same codes and echoes the id.
        response = await http.client.post("/api", json={"id": 7, "op": "values", "outstation": "x"})
        assert response.status_code == 400 and response.json()["id"] == 7


@pytest.mark.interop
@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_nothing_that_commands_is_sent_without_control(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="gridwire.commands")
    with yadnp3_outstation(points=3) as peer:
        async with (
            running_service(outstations=[outstation(peer.port)]) as running,
            open_transport(kind, running) as api,
        ):
            ok(await api.call("idle", "y"))
            refused = [
                ("operate", {"points": {"bo": {"0": True}}}),
                ("write_time", {}),
                ("clear_restart", {}),
                ("synchronize_time", {"procedure": "non_lan"}),
                ("freeze", {"clear": True}),
                ("restart", {}),
                ("request", {"function": "WRITE", "body": "500100070700"}),
                # A CONFIRM by hand could retire events yadnp3 holds for the master.
                ("request", {"function": "CONFIRM"}),
                ("broadcast", {"function": "DIRECT_OPERATE_NR"}),
                ("broadcast", {"function": "CONFIRM"}),
                ("set_tasks", {"tasks": {"write_time": True}}),
            ]
            for op, params in refused:
                message = error(await api.call(op, "y", **params), "not_allowed")
                assert "--allow-control" in message, op
            added = await api.call(
                "add", name="z", host="127.0.0.1", port=peer.port, tasks={"clear_restart": True}
            )
            error(added, "not_allowed")
            # Read-only functions go; a writing task may be turned off; capture answers.
            read = ok(await api.call("request", "y", function="READ", body="3c0106"))
            assert read["outcome"] == "complete"
            ok(await api.call("set_tasks", "y", tasks={"clear_restart": False}))
            ok(await api.call("capture", "y"))
            ok(await api.call("broadcast", "y", function="READ", body="3c0106"))
            # yadnp3 logs requests in the order received: once the last read is logged,
            # every request before it is too.
            last = ok(await api.call("request", "y", function="READ", body="3c0206"))
            octets = [last["request"][i : i + 2] for i in range(0, len(last["request"]), 2)]
            await asyncio.to_thread(peer.expect, "request", hex=" ".join(octets).upper())
            functions = {r["fc"] for r in peer.received("request")}
    # Only READ (0x01), and CONFIRM (0x00) of what yadnp3 asked to be confirmed, reached it:
    # none of WRITE (0x02) to WARM_RESTART (0x0e), nor DELAY_MEASURE (0x17) or 0x18.
    assert functions <= {0x00, 0x01}, functions
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert {r.getMessage().split()[1] for r in warnings} >= {op for op, _ in refused} | {"add"}
    assert all("--allow-control" in r.getMessage() for r in warnings)
    assert not [r for r in caplog.records if r.getMessage().startswith("command ")]


@pytest.mark.interop
async def test_commands_are_logged_with_points_values_and_result(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="gridwire.commands")
    with yadnp3_outstation(points=3) as peer:
        async with (
            running_service(allow_control=True, outstations=[outstation(peer.port)]) as running,
            HttpTransport(running) as http,
        ):
            ok((await http.post("idle", outstation="y"))[1])
            status, _ = await http.post(
                "operate", outstation="y", points={"ao": {"1": 7}, "bo": {"2": False}}
            )
            assert status == 200
            await http.post("scan", outstation="y", kind="class0")
    commands = [r for r in caplog.records if r.getMessage().startswith("command ")]
    assert len(commands) == 1 and commands[0].levelno == logging.INFO
    line = commands[0].getMessage()
    assert line.startswith("command operate on y ")
    assert '"points":{"ao":{"1":7},"bo":{"2":false}}' in line
    assert '"accepted":true' in line and '"status":"SUCCESS"' in line
