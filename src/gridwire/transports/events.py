"""Writing the master's updates to a stream: server-sent events over HTTP, or JSON lines on the
line service after ``subscribe``.

:func:`pump` takes updates from a bus subscriber (whose backlog is bounded: 10,000 waiting
updates are dropped and replaced by one ``lost``), encodes each once, batches what is
waiting into one write, and writes it. A stream that accepts no write for ``idle`` seconds
(60) is given up; a stream with nothing to say is sent a keep-alive comment every
``keepalive`` seconds (SSE only), so a healthy stream is never idle and a dead one is found.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Literal

from gridwire.master.bus import Subscriber
from gridwire.operations.encoding import EventEncoder, dumps
from gridwire.operations.limits import BATCH_BYTES, STREAM_IDLE

log = logging.getLogger("gridwire.service")


SSE_KEEPALIVE = b": keep-alive\n\n"

Write = Callable[[bytes], Awaitable[None]]
Frame = Callable[[str, bytes], bytes]
Ended = Literal["stopped", "closed", "idle"]


def sse_frame(event: str, data: bytes) -> bytes:
    """One server-sent event: its name and its JSON data (one line: orjson writes no
    newline)."""
    return b"event: " + event.encode() + b"\ndata: " + data + b"\n\n"


def line_frame(event: str, data: bytes) -> bytes:
    """One event on the line service: ``{"event": NAME, "data": {...}}`` and a newline."""
    return b'{"event":' + dumps(event) + b',"data":' + data + b"}\n"


async def accepted(write: Awaitable[None], idle: float) -> bool:
    """Await a write, giving up (False) when the stream has not accepted it within
    ``idle`` seconds. (Not ``asyncio.wait_for``: in Python 3.11 it swallows a cancel that
    comes as the write ends, and a cancelled event pump then wrote on for good.)

    Every write first lets the event loop turn (as ``wait_for``'s task did): a connection
    answering the lines its client already sent, whose answers fit the write buffer, would
    otherwise never suspend, and one client's 2000 lines held every other for 150 ms.
    Cancelled in that turn, the write never began: it is closed, not left unawaited."""
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        if isinstance(write, Coroutine):
            write.close()
        raise
    try:
        async with asyncio.timeout(idle):
            await write
    except TimeoutError:
        return False
    return True


async def pump(
    subscriber: Subscriber,
    write: Write,
    frame: Frame,
    encoder: EventEncoder,
    stopping: asyncio.Event,
    *,
    idle: float = STREAM_IDLE,
    keepalive: float | None = None,
) -> Ended:
    """Write updates until the service stops, the subscriber is closed, or the stream
    accepts no write for ``idle`` seconds; returns which."""
    stop = asyncio.ensure_future(stopping.wait())
    getter: asyncio.Future[tuple[str, dict[str, object]]] | None = None
    try:
        while True:
            update = subscriber.get_nowait()
            if update is None:
                getter = asyncio.ensure_future(subscriber.get())
                done, _ = await asyncio.wait(
                    {getter, stop}, timeout=keepalive, return_when=asyncio.FIRST_COMPLETED
                )
                if stop in done:
                    return "stopped"
                if getter not in done:
                    getter.cancel()
                    if not await accepted(write(SSE_KEEPALIVE), idle):
                        return "idle"
                    continue
                try:
                    update = getter.result()
                except EOFError:
                    return "closed"
            chunk = await _batch(update, subscriber, frame, encoder)
            if chunk and not await accepted(write(chunk), idle):
                return "idle"
    finally:
        stop.cancel()
        if getter is not None:
            getter.cancel()
            # A getter that ended (EOFError once the subscriber closes) is looked at here.
            getter.add_done_callback(_retrieve)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def _batch(
    first: tuple[str, dict[str, object]],
    subscriber: Subscriber,
    frame: Frame,
    encoder: EventEncoder,
) -> bytes:
    """The first update and whatever else waits, framed, up to BATCH_BYTES."""
    parts: list[bytes] = []
    size = 0
    update: tuple[str, dict[str, object]] | None = first
    while update is not None:
        event, data = update
        try:
            piece = frame(event, await encoder.data(data))
        except TypeError:
            log.exception("event %s could not be written as JSON; skipped", event)
        else:
            parts.append(piece)
            size += len(piece)
        if size >= BATCH_BYTES:
            break
        update = subscriber.get_nowait()
    return b"".join(parts)
