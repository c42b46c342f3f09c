"""A connection the service closes after a refusal does not destroy the answers sent before
it (found by the fuzz run of the console: a pipelined ``values`` answer arrived cut short,
or not at all).

A refusal closes its connection (so a body never sent is never waited for). When the client
has already sent more (pipelined requests the service will not read), closing the socket with
those octets unread makes the kernel send a reset, which throws away whatever the client had
not yet read, the answers before the refusal among them: the answer of an operation that ran,
lost, is what makes a client that retries command twice. The service now closes as HTTP asks
(RFC 9112, 9.6): its side first, once everything is sent, reading and dropping what still
comes for a moment, then the socket.
"""

from __future__ import annotations

import asyncio
import errno

import orjson

from gridwire.net.lingering import LingeringTransport
from tests.fuzz.wire import Wire, request
from tests.service.harness import running_service


async def test_answers_before_a_refusal_survive_the_close() -> None:
    async with running_service() as svc:
        first = request("POST", "/api/status", b"{}", host=svc.host)
        refused = request("POST", "/api/status", None, host=svc.host)  # no body: 400, closed
        after = request("POST", "/api/status", b'{"pad": "' + b"x" * 300_000 + b'"}', host=svc.host)
        for buffer in (None, 4096):
            async with Wire.open(svc.http_port, rcvbuf=buffer) as wire:
                await wire.send(first * 20 + refused + after)
                await asyncio.sleep(0.5)  # the client reads late: everything is sent by now
                for _ in range(20):
                    answer = await wire.answer("POST", 10)
                    assert answer is not None and answer.status == 200, (buffer, answer)
                    assert orjson.loads(answer.body)["ok"] is True
                refusal = await wire.answer("POST", 10)
                assert refusal is not None and refusal.status == 400, (buffer, refusal)
                assert refusal.headers["connection"] == "close"
                assert await wire.closed_within(10)


class _GoneTransport(asyncio.Transport):
    """A transport whose client has reset the connection: shutting our side down fails."""

    def __init__(self) -> None:
        super().__init__()
        self.aborted = False

    def is_closing(self) -> bool:
        return self.aborted

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        raise OSError(errno.ENOTCONN, "Transport endpoint is not connected")

    def abort(self) -> None:
        self.aborted = True


async def test_closing_a_connection_already_reset_ends_it_quietly() -> None:
    # Found by the fuzz run of the console: a refusal answered just as its client reset the
    # connection made close() raise ENOTCONN inside the application ("Exception in ASGI
    # application" and a traceback).
    gone = _GoneTransport()
    lingering = LingeringTransport(gone)
    lingering.close()
    assert gone.aborted and lingering.is_closing()
