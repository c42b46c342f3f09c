"""A stream's writer that is cancelled just as its write ends stops (found by the fuzz run of
the line service: a subscribed connection, half-closed by its client after its last message,
stayed open, its events still written, because the cancel of its event pump was lost).

``asyncio.wait_for`` in Python 3.11 returns the inner result when the outer task is cancelled
after the inner one has finished but before the outer has resumed: the cancellation is
swallowed. ``events.accepted`` used it; its callers (the event pump, the line service's
answers and the event stream's first write) must see their cancellation.
"""

from __future__ import annotations

import asyncio

import pytest

from gridwire.master.bus import EventBus
from gridwire.operations.encoding import EventEncoder
from gridwire.transports.events import accepted, line_frame, pump


async def test_a_write_cancelled_as_it_ends_is_cancelled() -> None:
    loop = asyncio.get_running_loop()
    gate: asyncio.Future[None] = loop.create_future()

    async def write() -> None:
        await gate

    task = asyncio.ensure_future(accepted(write(), 60))
    for _ in range(3):
        await asyncio.sleep(0)  # the write is waiting on the gate
    gate.set_result(None)  # the write ends on the next turn...
    task.cancel()  # ...and its caller is cancelled on the same one
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_pump_cancelled_as_a_write_ends_stops() -> None:
    loop = asyncio.get_running_loop()
    bus = EventBus()
    subscriber = bus.subscribe()
    gates: list[asyncio.Future[None]] = []
    writing = asyncio.Event()

    async def write(data: bytes) -> None:
        gate: asyncio.Future[None] = loop.create_future()
        gates.append(gate)
        writing.set()
        await gate

    pumping = asyncio.ensure_future(
        pump(subscriber, write, line_frame, EventEncoder(), asyncio.Event(), idle=60)
    )
    bus.publish("outstations", {})
    await writing.wait()
    gates[0].set_result(None)
    pumping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(pumping), 5)
