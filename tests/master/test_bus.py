"""The event bus: one backlog per subscriber, ``lost`` after 10,000 waiting updates."""

from __future__ import annotations

import asyncio

from gridwire.master.bus import BACKLOG_LIMIT, EventBus


async def test_each_subscriber_gets_every_update_in_order() -> None:
    bus = EventBus()
    a, b = bus.subscribe(), bus.subscribe()
    bus.publish("connection", {"outstation": "x", "connected": True})
    bus.publish("outstations", {})
    assert await a.get() == ("connection", {"outstation": "x", "connected": True})
    assert await a.get() == ("outstations", {})
    assert [await b.get(), await b.get()][1] == ("outstations", {})


async def test_a_subscriber_left_behind_is_told_what_it_lost() -> None:
    assert BACKLOG_LIMIT == 10_000
    bus = EventBus()
    slow = bus.subscribe()
    for n in range(BACKLOG_LIMIT):
        bus.publish("frame", {"n": n})
    assert slow.waiting == BACKLOG_LIMIT
    bus.publish("frame", {"n": BACKLOG_LIMIT})  # the 10,001st: the 10,000 waiting go
    assert await slow.get() == ("lost", {"dropped": BACKLOG_LIMIT})
    assert await slow.get() == ("frame", {"n": BACKLOG_LIMIT})
    # Still subscribed.
    bus.publish("frame", {"n": -1})
    assert await slow.get() == ("frame", {"n": -1})


async def test_get_waits_and_close_ends_iteration() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    waiter = asyncio.create_task(sub.get())
    await asyncio.sleep(0)
    assert not waiter.done()
    bus.publish("outstations", {})
    assert await waiter == ("outstations", {})
    bus.publish("outstations", {"later": 1})
    sub.close()
    assert bus.subscribers == 0
    bus.publish("outstations", {"after close": 1})
    seen = [update async for update in sub]
    assert seen == [("outstations", {"later": 1})]
