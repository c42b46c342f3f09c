"""An operation whose answer was lost on its way back (D241), on a real nats-server: the front
asks the worker whether it is still carrying the operation out. "No" with no answer come means
the answer was lost, and the front says so within seconds, not at the operation's 60 s limit.
"Yes" means the front waits on and takes the answer when it comes.

The worker here is a stand-in on the operation's subject whose answer never leaves: the real
worker's answer is lost only when its NATS node dies at the wrong moment (measured in D241).
The real worker's side counts an operation as pending as it arrives, before its task runs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import nats
import orjson
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from gridwire.cluster import routing
from gridwire.cluster.routing import Router
from gridwire.cluster.serving import WorkerServer
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import Buckets, Subjects, open_buckets, outstation_key
from gridwire.errors import ConnectionFailed
from tests.support.nats import NatsServer

WORKER = "standin"


@pytest.fixture
async def held(server: NatsServer, request: pytest.FixtureRequest) -> AsyncIterator[Router]:
    """A router whose outstation "os" is held by the live stand-in worker."""
    nc = await nats.connect(server.url)
    prefix = request.node.name.replace("_", "")[-30:]
    settings = ClusterSettings.from_url(server.url, prefix=prefix, lease=4.0)
    buckets = await open_buckets(nc, settings)
    await buckets.workers.put(f"w.{WORKER}", orjson.dumps({"epoch": 5}))
    lease = orjson.dumps({"worker": WORKER, "epoch": 5})
    await buckets.outstations.put(outstation_key("os"), b"{}")
    await buckets.leases.put(outstation_key("os"), lease)
    try:
        yield Router(nc, buckets, Subjects(prefix))
    finally:
        await nc.close()


async def _stand_in(nc: Client, subjects: Subjects, pending: bool, answer_after: float) -> None:
    """The worker: takes each operation, answers none (or one, ``answer_after`` seconds
    later), and says ``pending`` when asked."""
    seen: list[Msg] = []

    async def taken(msg: Msg) -> None:
        seen.append(msg)
        if answer_after:
            await asyncio.sleep(answer_after)
            await msg.respond(b'{"id":null,"ok":true,"result":"late"}')

    async def asked(msg: Msg) -> None:
        await msg.respond(b"true" if pending else b"false")

    await nc.subscribe(subjects.op(WORKER), cb=taken)
    await nc.subscribe(subjects.pending(WORKER), cb=asked)


async def _workers_renewed(buckets: Buckets) -> None:
    """The stand-in's entry kept alive (its bucket's TTL is the lease)."""
    entry = await buckets.workers.get(f"w.{WORKER}")
    while True:
        await asyncio.sleep(0.5)
        assert entry.value is not None
        await buckets.workers.put(f"w.{WORKER}", entry.value)


@asynccontextmanager
async def stood_in(
    router: Router, server: NatsServer, pending: bool, answer_after: float
) -> AsyncIterator[None]:
    """The stand-in worker running, its entry renewed, while inside."""
    worker = await nats.connect(server.url)
    renewing = asyncio.ensure_future(_workers_renewed(router.buckets))
    try:
        await _stand_in(worker, router.subjects, pending, answer_after)
        yield
    finally:
        renewing.cancel()
        await worker.close()


async def test_an_answer_lost_on_its_way_back_is_said_within_seconds(
    held: Router, server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(routing, "PENDING_AFTER", 0.5)
    message = {"id": 7, "op": "operate", "outstation": "os", "params": {}}
    start = time.monotonic()
    async with stood_in(held, server, pending=False, answer_after=0):
        with pytest.raises(ConnectionFailed) as lost:
            await held.route(message, commands=True)
    took = time.monotonic() - start
    assert "was lost" in str(lost.value)
    assert "may or may not have been sent" in str(lost.value)
    assert took < 5.0, took  # without the question: the operation's 60 s


async def test_an_operation_still_carried_out_is_waited_for(
    held: Router, server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(routing, "PENDING_AFTER", 0.5)
    message = {"id": 8, "op": "scan", "outstation": "os", "params": {}}
    async with stood_in(held, server, pending=True, answer_after=3.0):
        body = await held.route(message, commands=False)
    assert orjson.loads(body)["result"] == "late"


class _Unhurried:
    """A worker whose operations wait until the test lets them run (``spawn`` keeps them)."""

    def __init__(self, subjects: Subjects) -> None:
        self.subjects = subjects
        self.id = WORKER
        self.kept: list[Coroutine[Any, Any, None]] = []

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        self.kept.append(work)


async def test_a_question_sent_with_its_operation_finds_it_pending(server: NatsServer) -> None:
    subjects = Subjects("pendingorder")
    worker_nc, front = await nats.connect(server.url), await nats.connect(server.url)
    worker = _Unhurried(subjects)
    served = WorkerServer(worker_nc, worker, None)  # type: ignore[arg-type]
    try:
        await served.start()
        await worker_nc.flush()
        payload = orjson.dumps({"message": {}, "expires": 0, "epoch": 0, "rid": "ab12"})
        # Both leave in one flush and arrive together: the question must not find the
        # operation missing because its task has not run yet.
        await front.publish(subjects.op(WORKER), payload, reply="_INBOX.unread")
        asked = await front.request(subjects.pending(WORKER), b"ab12", timeout=5)
        other = await front.request(subjects.pending(WORKER), b"cd34", timeout=5)
        assert (asked.data, other.data) == (b"true", b"false")
        assert len(worker.kept) == 1
    finally:
        for work in worker.kept:
            work.close()
        await served.close()
        await worker_nc.close()
        await front.close()
