"""Every message gets an envelope (issue 9, item 3): an ``id`` that could not be written back
is refused before anything runs, and an answer that cannot be written, or a fault in the
service itself, is still an envelope on both transports, never a plain-text 500 or a
connection closed without a word."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import pytest

from gridwire.operations.context import Context
from gridwire.operations.declaration import OperationTable, OutstationParams, Params, declare
from gridwire.operations.table import default_table
from tests.service.harness import (
    HttpTransport,
    LineTransport,
    Running,
    body_of,
    error,
    raw_http,
    running_service,
    status_of,
)
from tests.service.sockets import post

ID_LENGTH = 256  # the documented longest string id
NESTED_ID = b"[" * 300 + b"1" + b"]" * 300  # deeper than orjson writes (254)
calls: list[str] = []


@dataclass(slots=True)
class Unwritable:
    value: Any


def _unwritable(context: Context, params: Params) -> Unwritable:
    calls.append("unwritable")
    return Unwritable(object())


def _count(context: Context, params: OutstationParams) -> dict[str, int]:
    calls.append(params.outstation)
    return {"calls": len(calls)}


def table() -> OperationTable:
    return default_table().extended(
        [
            declare(
                "test.unwritable",
                params=Params,
                result=Unwritable,
                handler=_unwritable,
                summary="Runs, and answers with a result JSON cannot hold",
            ),
            declare(
                "test.count",
                params=OutstationParams,
                result=dict,
                handler=_count,
                summary="Counts its calls",
            ),
        ]
    )


async def post_raw(running: Running, body: bytes) -> tuple[int, Any]:
    response = await raw_http(running.http_port, post(running.host, "/api", body))
    return status_of(response), body_of(response)


async def test_an_id_too_deep_to_write_back_is_refused_before_anything_runs() -> None:
    calls.clear()
    async with running_service(table=table()) as running:
        message = b'{"op":"test.count","outstation":"o","id":' + NESTED_ID + b"}"
        status, envelope = await post_raw(running, message)
        assert status == 400
        assert envelope["id"] is None
        assert error(envelope, "request") == "message field id must be a string, a number or null"
        async with LineTransport(running) as line:
            await line.send_line(message + b"\n")
            answer = await line.read_line()
            assert answer is not None and answer["id"] is None
            error(answer, "request")
            # The connection stays, and the next message is answered.
            assert (await line.call("test.count", "o"))["ok"] is True
            stop = b'{"op":"stop","id":' + NESTED_ID + b"}\n"
            await line.send_line(stop)
            refused = await line.read_line()
            assert refused is not None and refused["ok"] is False
        assert not running.service.stopping.is_set()  # stop did not run
    assert calls == ["o"]  # only the message with a usable id ran


@pytest.mark.parametrize(
    "ident",
    [True, [1], {"mine": 1}, "x" * (ID_LENGTH + 1)],
    ids=["boolean", "list", "object", "long string"],
)
async def test_ids_other_than_a_short_string_a_number_or_null_are_refused(ident: object) -> None:
    async with running_service() as running, HttpTransport(running) as http:
        response = await http.client.post("/api", json={"id": ident, "op": "status"})
        assert response.status_code == 400
        assert response.json()["id"] is None
        async with LineTransport(running) as line:
            await line.send_line(orjson.dumps({"id": ident, "op": "subscribe"}) + b"\n")
            answer = await line.read_line()
            assert answer is not None and answer["id"] is None
            error(answer, "request")


@pytest.mark.parametrize("ident", ["x" * ID_LENGTH, 7, -7, 7.5, 2**64 - 1, None, ""])
async def test_usable_ids_come_back_as_sent(ident: object) -> None:
    async with running_service() as running, HttpTransport(running) as http:
        response = await http.client.post("/api", json={"id": ident, "op": "status"})
        assert response.status_code == 200 and response.json()["id"] == ident
        async with LineTransport(running) as line:
            answer = await line.message({"id": ident, "op": "status"})
            assert answer["ok"] is True


async def test_a_result_that_cannot_be_written_is_an_error_that_says_it_ran() -> None:
    calls.clear()
    async with running_service(table=table()) as running:
        status, envelope = await post_raw(running, b'{"id":"u1","op":"test.unwritable"}')
        assert status == 400 and envelope["id"] == "u1"
        assert "was carried out, but its result could not be written" in error(envelope, "request")
        async with LineTransport(running) as line:
            answer = await line.message({"id": "u2", "op": "test.unwritable"})
            assert "was carried out" in error(answer, "request")
    assert calls == ["unwritable", "unwritable"]


async def test_a_fault_in_the_service_is_still_an_envelope(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with running_service() as running:

        async def broken(*args: object) -> Any:
            raise RuntimeError("a bug")

        monkeypatch.setattr(running.service.dispatcher, "_run", broken)
        status, envelope = await post_raw(running, b'{"op":"status"}')
        assert status == 400
        assert error(envelope, "request") == "no answer could be made: a bug"
        async with LineTransport(running) as line:
            await line.send_line(b'{"op":"status"}\n')
            answer = await line.read_line()
            assert answer is not None
            assert error(answer, "request") == "no answer could be made: a bug"
