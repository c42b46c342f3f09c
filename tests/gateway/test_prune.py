"""Old events are forgotten (DESIGN D203): an event over for the bound, no longer listed by the
head-end and owing no Response is dropped from memory and from the SQLite store, with its
Responses; the steps sent to the DER before the bound too. In process, a bound of 0.3 s, the
gateway's own pruning on its own store (no head-end is reached: nothing is polled here)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import cast

from gridwire.derops import Der
from gridwire.gateway.runner import Gateway
from gridwire.gateway.store import Store
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import build_config
from tests.gateway.test_schedule import control, program
from tests.sep2.pki import Pki


def mrids(store: Store) -> tuple[list[str], list[str]]:
    events = sorted(r.mrid for r in store.events())
    return events, sorted({x["mrid"] for x in store.responses()})


def post_all(store: Store, mrid: str) -> None:
    for response_id, due in store.unposted():
        if due.mrid == mrid:
            store.posted(response_id, time.time(), 201)


async def test_events_over_answered_and_unlisted_are_forgotten_after_the_bound(
    pki: Pki, tmp_path: Path
) -> None:
    settings = {
        "server": {"url": "https://127.0.0.1:9"},
        "tls": {
            "ca": str(pki.ca),
            "certificate": str(pki.device_certificate),
            "key": str(pki.device_key),
        },
    }
    client = Sep2Client(build_config(settings))
    store = Store(tmp_path / "gw.db")
    gateway = Gateway(client, cast(Der, object()), store, post_seconds=None, keep_seconds=0.3)
    now = int(client.now())
    expired = control("A1", now - 100, 10)  # over when first seen: 254
    running = control("A2", now - 5, 1000)  # received, started; runs on
    cancelled = control("A3", now + 100, 10, status=2)  # received, cancelled: 1, 6
    listed = program("/derp/0", 1, expired, running, cancelled)
    gateway.feed.sets = {"/derp/0": listed}
    decision = gateway.scheduler.update([listed], client.now)
    store.save_events(gateway.scheduler.records, decision.responses)
    assert sorted((r.mrid, r.status) for r in decision.responses) == [
        ("A1", 254),
        ("A2", 1),
        ("A2", 2),
        ("A3", 1),
        ("A3", 6),
    ]
    post_all(store, "A1")
    store.add_change(time.time() - 10, {"step": "old"})
    store.add_change(time.time() + 100, {"step": "recent"})

    assert gateway.prune() == []  # within the bound
    await asyncio.sleep(0.4)
    assert gateway.prune() == []  # over the bound, but the head-end still lists them
    assert [c["step"] for c in store.changes()] == ["recent"]  # steps go by age alone

    gateway.feed.sets = {"/derp/0": program("/derp/0", 1, running)}  # A1 and A3 unlisted
    assert gateway.prune() == ["A1"]  # A3 still owes its Responses
    assert sorted(gateway.scheduler.records) == ["A2", "A3"]
    assert mrids(store) == (["A2", "A3"], ["A2", "A3"])
    post_all(store, "A3")
    assert gateway.prune() == ["A3"]
    assert gateway.prune() == []  # A2 runs on: never dropped while it does
    assert sorted(gateway.scheduler.records) == ["A2"]
    store.close()

    reopened = Store(tmp_path / "gw.db")  # what a restart takes up
    try:
        assert mrids(reopened) == (["A2"], ["A2"])
        assert reopened.events()[0].state == "active"
    finally:
        reopened.close()
