"""An outstation that accepts the connection and closes it at once (issue 18): ``status``
says so in ``last_error`` with the seconds the connection lasted, a scan says it rather than
only "not connected", and the log says it once however often the master reconnects (D140).
The outstation is a few lines of asyncio in the test: a listening socket that closes every
connection it accepts, and counts them."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from tests.service.harness import HttpTransport, LineTransport, ok, outstation, running_service
from tests.support.waiting import until

CLOSED = re.compile(r"^closed by the outstation (\d+\.\d) s after connecting$")


async def test_an_outstation_closing_at_once_is_named_in_status_scan_and_log_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    accepted = 0

    async def close_at_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        writer.close()

    server = await asyncio.start_server(close_at_once, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    caplog.set_level(logging.WARNING, logger="gridwire.master.session")
    try:
        # reconnect 0.1 s: the master connects again and again while the test looks.
        settings = outstation(port, "closer", reconnect=0.1, manual=True)
        async with (
            running_service(outstations=[settings]) as running,
            HttpTransport(running) as http,
            LineTransport(running) as line,
        ):
            await until(lambda: accepted >= 4)
            errors = []
            for _ in range(40):  # status, read while the master reconnects
                entry = ok(await http.call("status"))["outstations"][0]
                errors.append(entry["last_error"])
                await asyncio.sleep(0.005)
            # Between the closes a connection is open for a moment; the error stays.
            assert all(e is not None and CLOSED.match(e) for e in errors), set(errors)
            seconds = float(CLOSED.match(errors[-1]).group(1))  # type: ignore[union-attr]
            assert 0.0 <= seconds < 5.0
            for transport in (http, line):
                answer = await transport.call("scan", "closer", kind="integrity")
                assert not answer["ok"], answer
                assert answer["error"]["kind"] == "connection", answer
                said = answer["error"]["message"]
                assert "closed by the outstation" in said, said
                assert "s after connecting" in said, said
    finally:
        server.close()
        await server.wait_closed()
    lines = [r.getMessage() for r in caplog.records if "closed by the outstation" in r.getMessage()]
    assert accepted >= 4
    # At most once a minute: one line for all the closes of this test (well under a minute).
    assert len(lines) == 1, lines
    assert lines[0].startswith("outstation closer: connection closed by the outstation "), lines
