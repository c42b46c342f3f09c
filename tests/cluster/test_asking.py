"""JetStream asked again while its leader is away (D240), on real nats-servers: a create whose
answer was lost is recognised by its value, another value is still refused, a read gives up
within its time, buckets are made on a NATS cluster that has just started, and a server without
JetStream is named as such once the time to make them has passed."""

from __future__ import annotations

import asyncio
import time

import nats
import nats.errors
import pytest
from nats.js.api import KeyValueConfig
from nats.js.errors import KeyWrongLastSequenceError
from nats.js.kv import KeyValue

from gridwire.cluster import asking, store
from gridwire.cluster.asking import asked, created
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import open_buckets
from gridwire.errors import ConfigError
from tests.support.nats import NatsServer, nats_cluster, nats_server


async def _bucket(server: NatsServer, name: str) -> tuple[nats.NATS, KeyValue]:
    nc = await nats.connect(server.url)
    kv = await nc.jetstream().create_key_value(KeyValueConfig(bucket=name, history=1))
    return nc, kv


@pytest.mark.serial  # a paused server and sub-second attempts: in the quiet phase
async def test_a_create_whose_answer_was_lost_is_taken_as_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(asking, "ATTEMPT", 0.5)
    with nats_server() as server:
        nc, kv = await _bucket(server, "lost")
        try:
            with server.paused():
                creating = asyncio.ensure_future(created(kv, "o.a", b"mine", within=10))
                # The first attempt is given up unanswered; the second is sent meanwhile.
                await asyncio.sleep(0.9)
            # Resumed: the first is stored, the second finds the key taken by the same value.
            revision = await creating
            entry = await kv.get("o.a")
            assert (entry.value, entry.revision, revision) == (b"mine", 1, 1)
        finally:
            await nc.close()


async def test_another_value_is_refused() -> None:
    with nats_server() as server:
        nc, kv = await _bucket(server, "taken")
        try:
            await kv.create("o.a", b"theirs")
            with pytest.raises(KeyWrongLastSequenceError):
                await created(kv, "o.a", b"mine")
            assert (await kv.get("o.a")).value == b"theirs"
        finally:
            await nc.close()


@pytest.mark.serial  # a paused server and sub-second attempts: in the quiet phase
async def test_a_read_gives_up_within_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asking, "ATTEMPT", 0.3)
    with nats_server() as server:
        nc, kv = await _bucket(server, "slow")
        try:
            await kv.put("o.a", b"1")
            with server.paused():
                start = time.monotonic()
                with pytest.raises(nats.errors.TimeoutError):
                    await asked(lambda: kv.get("o.a"), within=1.0)
                took = time.monotonic() - start
            assert 0.6 <= took < 5.0, took  # asked again, and not nats-py's 10 s
            assert (await asked(lambda: kv.get("o.a"))).value == b"1"
        finally:
            await nc.close()


async def test_buckets_are_made_on_a_nats_cluster_just_started() -> None:
    with nats_cluster(3) as servers:
        urls = tuple(s.url for s in servers)
        nc = await nats.connect(servers=list(urls))
        try:
            # Before D240 this failed: "no suitable peers for placement", then a timeout.
            buckets = await open_buckets(nc, ClusterSettings(servers=urls, replicas=3))
            status = await buckets.outstations.status()
            assert status.stream_info.config.num_replicas == 3
        finally:
            await nc.close()


async def test_a_nats_server_without_jetstream_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "BUCKETS_WAIT", 1.0)
    with nats_server(jetstream=False) as server:
        nc = await nats.connect(server.url)
        try:
            with pytest.raises(ConfigError, match=r"is JetStream enabled .*nats-server -js"):
                await open_buckets(nc, ClusterSettings.from_url(server.url))
        finally:
            await nc.close()
