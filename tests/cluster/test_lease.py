"""A worker's lease on a real nats-server (D226, D227): a renewal stored without its answer
reaching the worker is found by the next and held, from when it was sent; an entry written
by another or gone ends the lease; the renewer thread keeps the lease through a NATS server
that stops answering for less than the lease's time, and loses it past that; a worker whose
loop runs late says so."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import nats
import orjson
import pytest
from nats.js.kv import KeyValue

from gridwire.cluster.lease import SAFE, LeaseLost, WorkerLease
from gridwire.cluster.renewer import Renewer
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import Buckets, Subjects, open_buckets
from gridwire.cluster.worker import Worker
from gridwire.master import Master
from tests.support.nats import NatsServer
from tests.support.waiting import until

TTL = 4.0


class AnswerLost:
    """The bucket, but the answer to an update never reaches us (it is stored)."""

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv

    async def update(self, key: str, value: bytes, last: int) -> int:
        await self.kv.update(key, value, last=last)
        raise TimeoutError

    async def get(self, key: str) -> Any:
        return await self.kv.get(key)


@pytest.fixture
async def buckets(server: NatsServer, request: pytest.FixtureRequest) -> AsyncIterator[Buckets]:
    nc = await nats.connect(server.url)
    prefix = request.node.name.replace("_", "")[-30:]
    try:
        yield await open_buckets(nc, ClusterSettings.from_url(server.url, prefix=prefix, lease=TTL))
    finally:
        await nc.close()


async def test_a_renewal_stored_without_its_answer_is_held_from_when_it_was_sent(
    buckets: Buckets,
) -> None:
    now = [1000.0]
    lease = WorkerLease(buckets.workers, "wl", TTL, dict, clock=lambda: now[0])
    epoch = await lease.start()
    now[0] += 1
    with pytest.raises(TimeoutError):
        await lease.renew(AnswerLost(buckets.workers))  # type: ignore[arg-type]
    stored = await buckets.workers.get(lease.key)
    assert stored.revision != lease.revision  # stored, and the worker does not know it
    now[0] += 1
    await lease.renew(buckets.workers)  # made on the old revision: refused, then read back
    assert (lease.epoch, lease.revision, lease.until) == (epoch, stored.revision, 1001 + TTL * SAFE)
    now[0] += 1
    await lease.renew(buckets.workers)
    assert lease.revision == (await buckets.workers.get(lease.key)).revision
    assert lease.until == 1003 + TTL * SAFE and lease.valid()


async def test_an_entry_rewritten_by_another_or_gone_ends_the_lease(buckets: Buckets) -> None:
    lease = WorkerLease(buckets.workers, "wl", TTL, dict)
    epoch = await lease.start()
    with pytest.raises(TimeoutError):
        await lease.renew(AnswerLost(buckets.workers))  # type: ignore[arg-type]
    # Another writes the entry, naming an attempt of ours but another epoch.
    await buckets.workers.put(lease.key, orjson.dumps({"epoch": epoch + 99, "renewal": 1}))
    with pytest.raises(LeaseLost):
        await lease.renew(buckets.workers)
    assert lease.epoch == 0 and not lease.valid()
    await lease.start()
    await buckets.workers.delete(lease.key)  # gone (as when its TTL passed)
    with pytest.raises(LeaseLost):
        await lease.renew(buckets.workers)
    assert lease.epoch == 0


async def test_the_renewer_holds_the_lease_through_a_pause_of_nats_shorter_than_it(
    server: NatsServer, buckets: Buckets
) -> None:
    """nats-server stopped (SIGSTOP) for 1.5 s, past an attempt's former 0.8 s: the lease
    stays held throughout (one attempt answered late, or stored and found). Stopped for
    longer than the local deadline: the lease is lost."""
    status = await buckets.workers.status()
    settings = ClusterSettings.from_url(server.url, prefix=status.bucket.removesuffix("-workers"))
    lease = WorkerLease(buckets.workers, "wr", TTL, dict)
    epoch = await lease.start()
    renewer = Renewer(lease, settings, status.bucket)
    renewer.start()
    held: list[bool] = []
    watching = threading.Event()

    def watch() -> None:
        while not watching.is_set():
            held.append(lease.valid() and lease.epoch == epoch)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    try:
        await asyncio.sleep(0.5)
        first = lease.revision
        watcher.start()
        await _stopped(server, 1.5)
        await until(lambda: lease.revision > first + 1, within=5)  # renewed since
        watching.set()
        watcher.join()
        assert held and all(held), f"the lease lapsed {held.count(False)} times in 20 ms"
        await _stopped(server, TTL * SAFE + 0.5)
        await until(lambda: lease.epoch == 0, within=5)
    finally:
        watching.set()
        renewer.stop()


async def _stopped(server: NatsServer, seconds: float) -> None:
    with server.paused():
        await asyncio.sleep(seconds)


async def test_a_worker_whose_loop_runs_late_says_so(
    buckets: Buckets, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gridwire.cluster.worker.LATE", 0.3)
    master = Master()
    worker = Worker("wlate", master, buckets, Subjects("late"), capacity=10)
    watching = asyncio.create_task(worker._watching())
    try:
        await worker.lease.start()
        await asyncio.sleep(0.3)
        with caplog.at_level(logging.WARNING, logger="gridwire.cluster"):
            time.sleep(0.6)  # noqa: ASYNC251 (the loop held, as by a storm of work)
            await asyncio.sleep(0.3)
        assert any("its loop ran " in r.getMessage() for r in caplog.records), caplog.text
        counts = worker.counts()
        assert int(str(counts["late_max_ms"])) >= 300
        assert int(str(worker.counts()["late_max_ms"])) < 300  # since it was last asked
    finally:
        watching.cancel()
        await master.close()
