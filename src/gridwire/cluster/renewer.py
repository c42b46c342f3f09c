"""The worker's lease renewed from a thread of its own, on a NATS connection of its own
(D154): a worker whose loop is busy connecting and polling thousands of outstations still
renews on time, while a paused or cut-off worker does not (the thread stops or cannot reach
NATS with it).

The thread only renews. When a renewal is refused (the entry expired or was rewritten) or the
local deadline passes, the lease's epoch becomes 0 and stays so: the worker's loop drops every
outstation, then starts a new epoch (:meth:`WorkerLease.start`), which the thread renews
from then on."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading

from nats.js.kv import KeyValue

from gridwire.cluster.lease import LeaseLost, WorkerLease
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import connect

log = logging.getLogger("gridwire.cluster")

TRIES = 5
"""Renewals per TTL: with the local deadline at 0.8 of it, three may fail in a row."""


class Renewer:
    """A daemon thread renewing ``lease`` every fifth of its TTL until :meth:`stop`."""

    def __init__(self, lease: WorkerLease, settings: ClusterSettings, bucket: str) -> None:
        self.lease = lease
        self.settings = settings
        self.bucket = bucket
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gridwire-lease", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        asyncio.run(self._renewing())

    async def _renewing(self) -> None:
        nc = None
        while not self._stop.is_set():
            try:
                if nc is None:
                    nc = await connect(self.settings, f"{self.lease.worker} lease")
                    # Each attempt given up after one period, so that a slow one does not
                    # hold back the next (there are several before the deadline).
                    js = nc.jetstream(timeout=self.lease.ttl / TRIES)
                    kv: KeyValue = await js.key_value(self.bucket)
                await self._sleep(self.lease.ttl / TRIES)
                if self.lease.epoch:
                    await self.lease.renew(kv)
            except LeaseLost as exc:
                log.warning("%s", exc)
            except Exception as exc:
                log.warning("worker %s: renewing the lease failed: %s", self.lease.worker, exc)
                if not self.lease.valid():
                    self.lease.end()
                await self._sleep(0.5)
        if nc is not None:
            with contextlib.suppress(Exception):
                await nc.close()

    async def _sleep(self, seconds: float) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self._stop.wait, seconds)
