"""One control gate (D130): every operation of the table that commands, asked over HTTP and the
line service of a service started without --allow-control, against gridwire's simulated DER
over TCP, is answered not_allowed with the same single message, logged once as refused, and
nothing reaches the outstation (its received octets are counted) nor leaves the master (its
trace)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from gridwire.master import gate
from gridwire.operations.table import default_table
from gridwire.outstation import run_outstation
from gridwire.simulator import SimulatedDer
from tests.service.harness import error, ok, outstation, running_service, transport

# Parameters with which each operation that may command does command.
COMMANDING: dict[str, dict[str, Any]] = {
    "add": {"name": "z", "host": "127.0.0.1", "port": 1, "tasks": {"write_time": True}},
    "set_tasks": {"tasks": {"clear_restart": True}},
    "request": {"function": "COLD_RESTART"},
    "operate": {"points": {"bo": {"0": True}}},
    "write_time": {},
    "clear_restart": {},
    "synchronize_time": {"procedure": "non_lan"},
    "freeze": {},
    "restart": {"kind": "warm"},
    "broadcast": {"function": "DIRECT_OPERATE"},
    "der.write": {"points": {"AO88": 50}},
    "der.enable": {"function": "volt-var"},
    "der.disable": {"function": "volt-var"},
    "der.curve": {"number": 2},
    "der.write_curve": {"number": 4, "type": 2, "x_units": 129, "y_units": 2, "points": []},
    "der.schedule": {"number": 2},
    "der.write_schedule": {"number": 2, "type": 13, "points": []},
    "der.enable_schedule": {"number": 1},
    "der.disable_schedule": {"number": 1},
    "restore_evaluation": {},
    "file.write": {"path": "/a.txt", "data": "aGk="},
    "file.delete": {"path": "/a.txt"},
}


class Counted:
    """The octets the simulated outstation has received from its master."""

    def __init__(self) -> None:
        self.octets = 0


@contextlib.asynccontextmanager
async def counted_der(kind: str) -> AsyncIterator[tuple[Any, Counted]]:
    """A service without control, one simulated DER ``der`` (with the profile) whose session
    counts every octet it receives."""
    counted = Counted()
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0) as server:
        receive = server.session.receive

        def counting(data: bytes, now: float) -> list[bytes]:
            counted.octets += len(data)
            return receive(data, now)

        server.session.receive = counting  # type: ignore[method-assign]
        settings = outstation(server.port, "der", profile="ieee1815.2", manual=True)
        async with (
            running_service(allow_control=False, outstations=[settings]) as running,
            transport(kind, running) as api,
        ):
            await running.master.idle("der")
            yield api, counted


def test_the_list_is_every_operation_that_may_command() -> None:
    table = default_table()
    assert {op.name for op in table if op.may_command} == set(COMMANDING)
    for name, params in COMMANDING.items():
        op = table.get(name)
        assert op is not None, name
        target = {} if op.target == "none" else {"outstation": "der"}
        validated = op.params.model_validate({**target, **params}, strict=True)
        assert op.commands_with(validated), name


@pytest.mark.parametrize("kind", ["http", "line"])
async def test_every_commanding_operation_is_refused_alike_and_sends_nothing(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="gridwire.commands")
    async with counted_der(kind) as (api, counted):
        # A read goes through: the counter and the trace see it.
        before = counted.octets
        ok(await api.call("scan", "der", kind="class0"))
        assert counted.octets > before
        octets = counted.octets
        frames = len(ok(await api.call("trace", "der"))["frames"])
        messages = set()
        for name, params in COMMANDING.items():
            target = None if name == "add" else "der"
            messages.add(error(await api.call(name, target, **params), "not_allowed"))
        assert messages == {gate.NOT_ALLOWED}
        assert counted.octets == octets
        assert len(ok(await api.call("trace", "der"))["frames"]) == frames
        assert [o["name"] for o in ok(await api.call("status"))["outstations"]] == ["der"]
    records = [r for r in caplog.records if r.name == "gridwire.commands"]
    assert [r.command.operation for r in records] == list(COMMANDING)  # type: ignore[attr-defined]
    assert all(r.levelno == logging.WARNING and r.command.refused for r in records)  # type: ignore[attr-defined]
    assert all(r.getMessage().endswith(": " + gate.NOT_ALLOWED) for r in records)
