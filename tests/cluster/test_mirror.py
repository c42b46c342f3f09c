"""A bucket's mirror on a real nats-server (D228): while its watcher's consumer lives it
reads nothing again; once the consumer is gone (as with a lost NATS node) it is found within
the time between two questions, watched again, and sees what changed meanwhile."""

from __future__ import annotations

import asyncio
import logging

import nats
import pytest
from nats.js.api import KeyValueConfig

from gridwire.cluster import mirror
from gridwire.cluster.mirror import Mirror
from tests.support.nats import NatsServer
from tests.support.waiting import until


async def test_a_lost_watcher_is_found_and_a_living_one_left_alone(
    server: NatsServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(mirror, "RESYNC", 0.3)
    nc = await nats.connect(server.url)
    js = nc.jetstream()
    kv = await js.create_key_value(KeyValueConfig(bucket="mirrored", history=1))
    seen: list[str] = []
    kept = Mirror(kv, lambda key, value: seen.append(key))
    try:
        await kv.put("o.a", b"1")
        kept.start()
        await kept.synced.wait()
        consumers = [c.name for c in await js.consumers_info("KV_mirrored")]
        await asyncio.sleep(0.7)  # some questions asked meanwhile
        await kv.put("o.b", b"2")
        await until(lambda: "o.b" in kept.entries)
        assert [c.name for c in await js.consumers_info("KV_mirrored")] == consumers
        assert seen == ["o.b"]  # nothing read again

        with caplog.at_level(logging.WARNING, logger="gridwire.cluster"):
            await js.delete_consumer("KV_mirrored", consumers[0])
            await kv.put("o.c", b"3")
            await until(lambda: "o.c" in kept.entries, within=10)
        assert "its watcher is lost" in caplog.text
        assert set(kept.entries) == {"o.a", "o.b", "o.c"}
    finally:
        await kept.close()
        await nc.close()
