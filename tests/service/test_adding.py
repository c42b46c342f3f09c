"""Outstations added together do not wait for one another's connection attempts (DESIGN
D148): the configured outstations at start, and many ``add`` messages at once.

The peer never answers: a listening socket whose backlog is full (nothing accepts), so the
kernel drops each new SYN and every attempt runs to its timeout (1 s: response_timeout 1).
Made one after another, 20 attempts would end about a second apart; made together they all
end within a moment of each other."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator

import pytest

from gridwire.master import Master, OutstationSettings
from gridwire.service.runner import add_all
from tests.service.harness import HttpTransport, running_service

COUNT = 20


@pytest.fixture
def silent_port() -> Iterator[int]:
    with socket.socket() as peer:
        peer.bind(("127.0.0.1", 0))
        peer.listen(0)
        port = peer.getsockname()[1]
        fillers = []
        for _ in range(3):  # a backlog of 0 takes one connection; these fill it
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            fillers.append(filler)
        time.sleep(0.1)
        try:
            yield port
        finally:
            for filler in fillers:
                filler.close()


def settings(port: int, n: int) -> OutstationSettings:
    return OutstationSettings(name=f"o{n}", host="127.0.0.1", port=port, response_timeout=1.0)


async def test_configured_outstations_are_added_together(silent_port: int) -> None:
    master = Master()
    ended: list[float] = []
    try:
        await add_all(
            master,
            [settings(silent_port, n) for n in range(COUNT)],
            None,
            lambda message: ended.append(time.monotonic()),
        )
    finally:
        await master.close()
    assert len(ended) == COUNT  # each reported not connected: "no answer in 1 s"
    assert max(ended) - min(ended) < 0.9  # one after another: 19 s apart


async def test_many_adds_at_once_answer_together(silent_port: int) -> None:
    async with running_service() as running, HttpTransport(running) as api:

        async def add(n: int) -> tuple[float, dict[str, object]]:
            answer = await api.call("add", **settings(silent_port, n).model_dump())
            return time.monotonic(), answer

        answers = await asyncio.gather(*(add(n) for n in range(COUNT)))
    errors = [answer["error"] for _, answer in answers]
    assert all(e["kind"] == "connection" and "no answer in 1 s" in e["message"] for e in errors)
    times = [t for t, _ in answers]
    assert max(times) - min(times) < 0.9
