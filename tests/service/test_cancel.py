"""No work for a client that left (issue 9, item 7): an HTTP operation whose client hangs up
before its answer is cancelled (a command it already sent stays sent; the command log says
it was cancelled), and no wait may be asked for longer than a day."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from gridwire.errors import OperationError
from gridwire.operations.context import Context
from gridwire.operations.declaration import OperationTable, Params, declare
from gridwire.operations.table import default_table
from tests.service.harness import HttpTransport, error, outstation, running_service
from tests.service.sockets import post, raw_client, send
from tests.support.net import free_port
from tests.support.waiting import until

LONGEST_WAIT = 86_400  # the documented cap, in seconds

events: list[str] = []


async def _hang(context: Context, params: Params) -> dict[str, bool]:
    events.append("started")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        events.append("cancelled")
        raise
    return {"never": True}


def hang_table() -> OperationTable:
    hang = declare(
        "test.hang",
        params=Params,
        result=dict,
        handler=_hang,
        commands=True,
        summary="Never ends by itself",
    )
    return default_table().extended([hang])


async def test_an_operation_whose_client_left_is_cancelled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    events.clear()
    async with running_service(table=hang_table(), allow_control=True) as running:
        async with raw_client(running.http_port) as sock:
            await send(sock, post(running.host, "/api/test.hang", b"{}"))
            await until(lambda: events == ["started"])
        await until(lambda: events == ["started", "cancelled"])
    messages = [r.getMessage() for r in caplog.records]
    assert "/api/test.hang: the client left; its operation was cancelled" in messages
    assert "command test.hang {}: cancelled (what was sent stays sent)" in messages


async def test_a_long_wait_for_ends_with_its_client() -> None:
    async with running_service() as running:
        # Added, never reachable: wait_for watches it and sends nothing.
        with contextlib.suppress(OperationError):
            await running.master.add(outstation(free_port(), reconnect=None))
        baseline = len(asyncio.all_tasks())
        body = b'{"outstation": "y", "timeout": 1000, "event": {}}'
        async with raw_client(running.http_port) as sock:
            await send(sock, post(running.host, "/api/wait_for", body))
            await until(lambda: len(asyncio.all_tasks()) > baseline)
            await asyncio.sleep(0.3)
        # The request's task, its wait and its watcher all end once the client is gone.
        await until(lambda: len(asyncio.all_tasks()) <= baseline)


async def test_waits_longer_than_a_day_are_refused() -> None:
    async with running_service() as running, HttpTransport(running) as http:
        with contextlib.suppress(OperationError):
            await running.master.add(outstation(free_port(), reconnect=None))
        status, envelope = await http.post(
            "wait_for", outstation="y", timeout=LONGEST_WAIT + 1, event={}
        )
        assert status == 400
        assert "timeout" in error(envelope, "request")
        status, envelope = await http.post("connect", outstation="y", wait=1e9)
        assert status == 400
        assert "wait" in error(envelope, "request")
        status, envelope = await http.post("wait_for", outstation="y", timeout=0.05, event={})
        assert status == 200 and envelope["result"]["held"] is False
