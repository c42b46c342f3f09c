"""A long answer streamed a slice at a time (D222): the line service's octets for a real
multi-fragment scan of yadnp3 against orjson's for the same exchange, built field by field
from the contract's names; whole lines for a subscribed connection; the dispatcher's pieces,
a command's whole answer, and an answer that fails half way cutting the connection. The
scan's objects are written as its fragments arrive (D235)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from pydantic import BaseModel

from gridwire.dnp3.app.fragments import Response
from gridwire.master import Master
from gridwire.master.records import Exchange
from gridwire.operations import dispatch
from gridwire.operations.context import Context
from gridwire.operations.declaration import OperationTable, declare
from gridwire.operations.dispatch import AnswerCut, Dispatcher
from gridwire.operations.encoding import CHUNK
from tests.service.harness import LineTransport, ok, outstation, running_service
from tests.support.peers import yadnp3_outstation

# The Exchange and Object records' fields in the contract's order (README, OpenAPI).
EXCHANGE = [
    "function",
    "task",
    "sequence",
    "outcome",
    "fragments",
    "indications",
    "object_count",
    "elapsed_ms",
    "request",
    "undecoded",
    "objects",
    "retries",
    "broadcast",
]
OBJECT = [
    "type",
    "group",
    "variation",
    "index",
    "name",
    "value",
    "flags",
    "time_ms",
    "synchronized",
    "event",
]


def _plain(value: Any) -> Any:
    """An object's value as the contract writes it: octets as hexadecimal text, a record
    (g50v4's time and interval) as an object of its fields."""
    if isinstance(value, bytes):
        return value.hex()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return value


def expected(ident: int, exchange: Exchange) -> bytes:
    result = {name: getattr(exchange, name) for name in EXCHANGE}
    result["objects"] = [
        {name: _plain(getattr(o, name)) if name == "value" else getattr(o, name) for name in OBJECT}
        for o in exchange.objects
    ]
    envelope = {"id": ident, "ok": True, "result": result}
    return orjson.dumps(envelope, option=orjson.OPT_NON_STR_KEYS) + b"\n"


@pytest.mark.interop
async def test_a_streamed_scan_is_orjsons_octets_and_a_subscriber_gets_whole_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 100 points of each of yadnp3's nine types: 900 objects (octet strings and times with
    # intervals among them) in more than one fragment, more than one slice. Their JSON is
    # made fragment by fragment as they arrive (D235): every fragment is observed, and the
    # answer is joined from those parts.
    observers: list[Watched] = []

    class Watched(dispatch.EarlyObjects):
        def __init__(self) -> None:
            super().__init__()
            self.fragments = 0
            observers.append(self)

        def __call__(self, response: Response) -> None:
            self.fragments += 1
            super().__call__(response)

    monkeypatch.setattr(dispatch, "EarlyObjects", Watched)
    with yadnp3_outstation(points=100) as peer:
        async with (
            running_service(outstations=[outstation(peer.port)]) as running,
            LineTransport(running) as line,
            LineTransport(running) as watcher,
        ):
            master = running.master
            made: list[Exchange] = []
            scan = master.scan

            async def kept(name: str, kind: str) -> Exchange:
                made.append(await scan(name, kind))
                return made[-1]

            master.scan = kept  # type: ignore[method-assign]
            ok(await line.call("idle", "y"))
            await line.send_line(
                b'{"id":7,"op":"scan","outstation":"y","params":{"kind":"integrity"}}\n'
            )
            assert line.reader is not None
            raw = await asyncio.wait_for(line.reader.readline(), 30)
            (exchange,) = made
            assert exchange.fragments > 1 and exchange.object_count > CHUNK
            assert exchange.undecoded == []
            assert raw == expected(7, exchange)
            scanned = observers[-1]
            assert (scanned.fragments, scanned.used) == (exchange.fragments, 1)
            # A subscribed connection's answer is whole: events come between lines, never
            # inside one (each line the harness reads must be JSON on its own).
            ok(await watcher.call("subscribe"))
            answer = ok(await watcher.call("scan", "y", kind="integrity"))
            assert answer["object_count"] == exchange.object_count
            await watcher.call("status")
            assert any(e["event"] == "exchange" for e in watcher.events)


class _Nothing(BaseModel):
    pass


def _table(result: Callable[[], object], commands: bool = False) -> OperationTable:
    return OperationTable(
        [
            declare(
                "give",
                params=_Nothing,
                result=list[Any],
                handler=lambda c, p: result(),
                summary="Gives what the test says",
                commands=commands,
            )
        ]
    )


async def _dispatch(table: OperationTable, allow: bool = False) -> tuple[Any, list[bytes]]:
    master = Master(allow_control=allow)
    try:
        pieces: list[bytes] = []
        answer = await Dispatcher(table, Context(master)).message(
            {"id": 1, "op": "give"}, pieces.append
        )
        return answer, pieces
    finally:
        await master.close()


async def test_a_long_answer_goes_out_in_pieces_and_a_commands_whole() -> None:
    long = list(range(3 * CHUNK))
    answer, pieces = await _dispatch(_table(lambda: long))
    assert answer.streamed and answer.body == b"" and len(pieces) == 3
    assert b"".join(pieces) == b'{"id":1,"ok":true,"result":' + orjson.dumps(long) + b"}"
    # A short answer, and any command's answer (its record keeps its parts), come whole.
    answer, pieces = await _dispatch(_table(lambda: long[:CHUNK]))
    assert not answer.streamed and pieces == [] and orjson.loads(answer.body)["ok"]
    answer, pieces = await _dispatch(_table(lambda: long, commands=True), allow=True)
    assert not answer.streamed and pieces == [] and orjson.loads(answer.body)["result"] == long


async def test_an_answer_that_fails_half_way_cuts_the_line_one_that_fails_at_once_is_an_error() -> (
    None
):
    at_once: list[object] = [object(), *range(2 * CHUNK)]
    answer, pieces = await _dispatch(_table(lambda: at_once))
    assert pieces == [] and orjson.loads(answer.body)["error"]["kind"] == "request"
    half_way: list[object] = [*range(CHUNK + 1), object()]
    with pytest.raises(AnswerCut):
        await _dispatch(_table(lambda: half_way))
    async with (
        running_service(table=_table(lambda: half_way)) as running,
        LineTransport(running) as line,
    ):
        await line.send_line(b'{"id":1,"op":"give"}\n')
        assert line.reader is not None
        came = b""
        with contextlib.suppress(ConnectionResetError):  # cut: reset, or ended unfinished
            while chunk := await asyncio.wait_for(line.reader.read(1 << 16), 30):
                came += chunk
        assert b"\n" not in came and b'"ok":false' not in came
