"""A line client that sends many lines at once does not hold the others (found by the fuzz
run of the line service: one client's 2000 buffered ``status`` lines held every other client
for about 150 ms, five such clients for about 900 ms). Each answer is written after a turn of
the event loop (``events.accepted``), so the connections take turns, a message each."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

from tests.service.harness import running_service

FLOODS = 3
LINES = 2000


@pytest.mark.serial
async def test_a_flood_of_lines_does_not_hold_another_client() -> None:
    async with running_service() as svc:
        # The other client is a thread with a blocking socket: a service that held the event
        # loop could not hold it as well.
        other = socket.create_connection(("127.0.0.1", svc.line_port), timeout=30)
        flooding = threading.Event()
        took: list[float] = []

        def ask() -> None:
            flooding.wait(30)
            time.sleep(0.01)  # the floods are being answered
            started = time.monotonic()
            other.sendall(b'{"op": "status", "id": "other"}\n')
            answer = other.makefile("rb").readline()
            took.append(time.monotonic() - started)
            assert b'"other"' in answer

        asking = threading.Thread(target=ask)
        asking.start()
        floods = [await asyncio.open_connection("127.0.0.1", svc.line_port) for _ in range(FLOODS)]
        try:
            for _, writer in floods:
                writer.write(b'{"op": "status"}\n' * LINES)
            flooding.set()
            for reader, _ in floods:
                for _ in range(LINES):
                    assert (await reader.readline()).startswith(b'{"id":null,"ok":true')
            await asyncio.to_thread(asking.join, 30)
        finally:
            for _, writer in floods:
                writer.close()
            other.close()
    assert took and took[0] < 0.05, f"the other client's status took {took[0] * 1000:.0f} ms"
