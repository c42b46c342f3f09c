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

from gridwire.cluster.lease import SAFE, LeaseLost, WorkerLease
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import connect

log = logging.getLogger("gridwire.cluster")

TRIES = 5
"""Renewals per TTL: one every fifth of it after the last one held."""
RETRY = 0.1
"""Seconds between a failed renewal attempt and the next (while the lease has time left)."""
SHORTEST = 0.25
"""Seconds an attempt's answer is waited for at least."""


class Renewer:
    """A daemon thread renewing ``lease`` every fifth of its TTL until :meth:`stop`.

    An attempt's answer is waited for half the time left on the lease (D226): a loaded
    NATS server or process answers late, and an attempt given up too soon is only sent
    again behind it. A failed attempt is tried again at once while time is left; one
    stored without its answer reaching us is found by the next (:meth:`WorkerLease.renew`)."""

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

    def _wait(self) -> float:
        """Seconds until the next renewal is due (a quarter second while no lease is held:
        the loop is taking a new one)."""
        lease = self.lease
        if not lease.epoch:
            return 0.25
        renewed = lease.until - lease.ttl * SAFE  # when the renewal held now was sent
        return renewed + lease.ttl / TRIES - lease.clock()

    async def _renewing(self) -> None:
        nc = None
        while not self._stop.is_set():
            try:
                if nc is None:
                    nc = await connect(self.settings, f"{self.lease.worker} lease")
                    js = nc.jetstream(timeout=self.lease.ttl)
                    kv: KeyValue = await js.key_value(self.bucket)
                wait = self._wait()
                if wait > 0:
                    await self._sleep(wait)
                    continue
                left = self.lease.until - self.lease.clock()
                await self.lease.renew(kv, wait=max(SHORTEST, left / 2))
            except LeaseLost as exc:
                log.warning("%s", exc)
            except Exception as exc:
                left = self.lease.until - self.lease.clock()
                log.warning(
                    "worker %s: a renewal of the lease failed (%s), %.1f s left on it",
                    self.lease.worker,
                    str(exc) or type(exc).__name__,
                    max(0.0, left),
                )
                await self._sleep(RETRY)
        if nc is not None:
            with contextlib.suppress(Exception):
                await nc.close()

    async def _sleep(self, seconds: float) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self._stop.wait, seconds)
