"""Asking JetStream again while its leaders are elected (D240).

A key-value request is answered by the leader of its bucket's stream. When that leader is
lost (its NATS node killed) or stalls (a node starved of CPU), the other nodes elect
another within seconds. Meanwhile a request is lost (no answer: a timeout), refused (503:
"JetStream system temporarily unavailable"; "no response from stream") or finds nobody to
take it (no responders). The front asks again rather than failing an operation for it:

- a read is asked again, each attempt given :data:`ATTEMPT` seconds, until ``within``
  seconds have passed;
- a create (compare-and-set on "no entry yet") is asked again the same way. Its answer may
  be the one lost after the entry was stored: an attempt that then finds the key taken
  reads the entry back, and the same value is taken as its own write.

A worker reads answers late when busy: where it asks again (a restore journal fetched
before connecting) each attempt is given nats-py's whole timeout. Its lease renewals have
their own retries and deadline (:mod:`gridwire.cluster.lease`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import nats.errors
from nats.js.errors import (
    KeyWrongLastSequenceError,
    NoStreamResponseError,
    ServiceUnavailableError,
)
from nats.js.kv import KeyValue

T = TypeVar("T")

ATTEMPT = 2.0
"""Seconds one attempt may take: a request sent to a leader that is gone is not answered,
and asking again after this reaches the one elected meanwhile."""
WITHIN = 15.0
"""Seconds a read or create is asked again in all (a NATS leader election takes a few)."""
AGAIN_AFTER = 0.2
"""Seconds between a refused attempt and the next."""

TRANSIENT: tuple[type[BaseException], ...] = (
    TimeoutError,  # nats.errors.TimeoutError and asyncio's are both TimeoutError
    nats.errors.NoRespondersError,
    ServiceUnavailableError,
    NoStreamResponseError,
)
"""What a JetStream request meets while a leader is elected: nothing is known to be done."""


async def asked(
    call: Callable[[], Awaitable[T]], within: float = WITHIN, attempt: float | None = None
) -> T:
    """``call()``'s answer, asked again while the answer is lost or refused, for up to
    ``within`` seconds, each attempt given ``attempt`` seconds (:data:`ATTEMPT`); the last
    transient error is raised then (a nats error: an attempt given up is nats' timeout)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + within
    while True:
        left = until - loop.time()
        try:
            each = ATTEMPT if attempt is None else attempt
            return await asyncio.wait_for(call(), max(0.05, min(each, left)))
        except TRANSIENT as exc:
            if loop.time() + AGAIN_AFTER >= until:
                if isinstance(exc, nats.errors.Error):
                    raise
                raise nats.errors.TimeoutError from None  # an attempt of ours given up
        await asyncio.sleep(AGAIN_AFTER)


async def created(kv: KeyValue, key: str, value: bytes, within: float = WITHIN) -> int:
    """Entry ``key`` created with ``value`` (its revision), asked again as :func:`asked`
    does; KeyWrongLastSequenceError when the key holds another value."""
    tries = 0

    async def create() -> int:
        nonlocal tries
        tries += 1
        try:
            return await kv.create(key, value)
        except KeyWrongLastSequenceError:
            if tries == 1:
                raise
            # An earlier attempt may have been stored with its answer lost.
            entry = await kv.get(key)
            if entry.value != value or entry.revision is None:
                raise
            return entry.revision

    return await asked(create, within)
