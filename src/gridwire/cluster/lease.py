"""A worker's lease: its entry in the workers bucket, renewed, and the fence that stops a
worker whose lease lapsed from commanding anything (D154, D155).

The entry ``w.<worker>`` lives ``ttl`` seconds unrenewed; its first revision is the worker's
*epoch*, which every outstation lease it takes names. The worker renews it every fifth of
the TTL, and counts its lease as held until ``sent + ttl * SAFE`` on its own monotonic clock,
where ``sent`` is when the last successful renewal was *sent*: the server's TTL runs from
when it *stored* that renewal, later, so the worker always believes its lease gone before
the server lets anyone else take what it held. A renewal refused (the entry expired, or was
written by another) ends the lease at once.

A renewal whose answer came too late may still have been stored: the next one, made on the
revision before it, is then refused as out of date. Each renewal's body names its attempt
(``renewal``), so the worker reads its entry back and, when it holds an attempt of this epoch
still unanswered, takes that revision as its own, counting from when *that* attempt was sent
(D226): one slow JetStream answer does not end a lease with time left on it.

:meth:`WorkerLease.valid` is synchronous, for the wire's fence, which runs right before
each commanding request is written (:meth:`gridwire.master.Master.command_fence`)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

import orjson
from nats.js.errors import KeyWrongLastSequenceError, NoKeysError, NotFoundError
from nats.js.kv import KeyValue

log = logging.getLogger("gridwire.cluster")

SAFE = 0.8
"""The share of the TTL a worker counts on after sending a renewal."""


class LeaseLost(Exception):
    """The worker's lease ended (refused renewal, or its time passed unrenewed)."""


class WorkerLease:
    """The worker's entry in the workers bucket."""

    def __init__(
        self,
        kv: KeyValue,
        worker: str,
        ttl: float,
        info: Callable[[], dict[str, object]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.kv = kv
        self.worker = worker
        self.key = f"w.{worker}"
        self.ttl = ttl
        self.info = info
        self.clock = clock
        self.epoch = 0
        self.revision = 0
        self.until = 0.0
        self._lock = threading.Lock()  # the renewer thread writes, the loop reads
        self._attempt = 0
        self._unanswered: dict[int, float] = {}  # renewal attempt -> when it was sent

    def valid(self) -> bool:
        """Whether the lease is held now (no network: the local deadline)."""
        return self.epoch != 0 and self.clock() < self.until

    async def start(self) -> int:
        """Write a new entry: a new epoch (what an earlier epoch held is not ours any more)."""
        sent = self.clock()
        body = orjson.dumps({"worker": self.worker, **self.info()})
        try:
            revision = await self.kv.create(self.key, body)
        except KeyWrongLastSequenceError:
            # An entry of ours from before (a restart within the TTL): take a fresh epoch.
            await self.kv.delete(self.key)
            revision = await self.kv.create(self.key, body)
        with self._lock:
            self.epoch = self.revision = revision
            self.until = sent + self.ttl * SAFE
        self._unanswered.clear()
        log.info("worker %s: lease taken, epoch %d", self.worker, revision)
        return revision

    async def renew(self, kv: KeyValue | None = None, wait: float | None = None) -> None:
        """Renew (through ``kv``, the renewer thread's own connection to the bucket),
        giving the answer ``wait`` seconds; LeaseLost when the entry is gone or not ours,
        or the local deadline passed (the epoch is 0 from then on). A network error or
        TimeoutError is raised as it is: the lease may still be held until :meth:`valid`
        says not, and the next call finds out whether this attempt was stored."""
        kv = kv or self.kv
        with self._lock:
            epoch, revision = self.epoch, self.revision
        if not self.valid():
            self.end(epoch)
            raise LeaseLost(f"worker {self.worker}: lease not renewed within its time")
        self._attempt += 1
        attempt, sent = self._attempt, self.clock()
        self._unanswered[attempt] = sent
        body = {"worker": self.worker, "epoch": epoch, "renewal": attempt, **self.info()}
        try:
            new = await asyncio.wait_for(
                kv.update(self.key, orjson.dumps(body), last=revision), wait
            )
        except KeyWrongLastSequenceError:
            new, sent = await self._stored_late(kv, epoch, wait)
        except NotFoundError:
            self.end(epoch)
            raise LeaseLost(f"worker {self.worker}: lease expired or taken over") from None
        self._hold(epoch, new, sent)

    async def _stored_late(self, kv: KeyValue, epoch: int, wait: float | None) -> tuple[int, float]:
        """The entry moved past the revision we knew: the revision and sending time of an
        attempt of ours stored without its answer reaching us, else LeaseLost."""
        revision, stored = None, {}
        try:
            entry = await asyncio.wait_for(kv.get(self.key), wait)
            revision, stored = entry.revision, orjson.loads(entry.value or b"{}")
        except (NotFoundError, orjson.JSONDecodeError):
            pass
        attempt = stored.get("renewal") if stored.get("epoch") == epoch else None
        sent = self._unanswered.get(attempt) if isinstance(attempt, int) else None
        if sent is None or revision is None:
            self.end(epoch)
            raise LeaseLost(f"worker {self.worker}: lease expired or taken over")
        log.info("worker %s: a renewal stored without its answer taken as held", self.worker)
        return revision, sent

    def _hold(self, epoch: int, revision: int, sent: float) -> None:
        with self._lock:
            if self.epoch == epoch:  # not ended (or started again) meanwhile
                self.revision = revision
                self.until = sent + self.ttl * SAFE
        self._unanswered.clear()

    def end(self, epoch: int | None = None) -> None:
        """The lease ended (only if it is still at ``epoch``, when given: a renewal of an
        epoch that ended does not end the one started since)."""
        with self._lock:
            if epoch is None or epoch == self.epoch:
                self.epoch = 0
                self.until = 0.0


async def live_workers(kv: KeyValue) -> dict[str, tuple[int, dict[str, object]]]:
    """The workers whose entry lives: worker -> (epoch, what it says of itself)."""
    found: dict[str, tuple[int, dict[str, object]]] = {}
    try:
        keys = await kv.keys()
    except (NotFoundError, NoKeysError):  # no entry: nats-py raises NoKeysError
        return found
    for key in keys:
        try:
            entry = await kv.get(key)
        except NotFoundError:
            continue
        if entry.value is None or entry.revision is None:
            continue
        try:
            info = orjson.loads(entry.value)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(info, dict):
            continue
        epoch = info.get("epoch", entry.revision)
        found[key.removeprefix("w.")] = (int(epoch), info)
    return found
