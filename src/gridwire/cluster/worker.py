"""``gridwire worker``: a master that takes outstations from the cluster under leases, renews
them, and answers the operations a front routes to it (D152-D157).

Every ``scan`` seconds a worker reads which workers live and which outstations are held; it
takes free outstations (no lease, or a lease whose worker's entry lapsed or changed epoch) up
to its share, ``min(capacity, ceil(outstations / live workers))``, and gives back what it
holds beyond that share, the last taken first and those under an evaluation last (so a
worker that joins gets its share, and only what it takes is interrupted). Taking is a
compare-and-set on the lease entry, so two workers never both take one; a lease naming a
worker not seen live is taken over only once the live workers were read again (D214). A
restore journal a lost worker's evaluation left is put back once connected (D212). Taken outstations are added to the master concurrently (at most ``CONNECTING``
at a time). A worker whose own lease lapses drops every outstation before anyone else may
take them (:mod:`gridwire.cluster.lease`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Awaitable
from typing import Any

import orjson

from gridwire.cluster.asking import TRANSIENT, asked
from gridwire.cluster.holdings import Held, Holdings
from gridwire.cluster.journals import ClusterJournals
from gridwire.cluster.lease import WorkerLease, live_workers
from gridwire.cluster.mirror import Mirror
from gridwire.cluster.store import JS_TIMEOUT, Buckets, Subjects, name_of_key, outstation_key
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import Conflict, OperationError
from gridwire.evaluate.evaluations import evaluations_of
from gridwire.master import Master, OutstationSettings
from gridwire.operations.dispatch import error_body
from gridwire.operations.encoding import encode

log = logging.getLogger("gridwire.cluster")

CONNECTING = 256
"""Outstations a worker takes, and connects to, at once when it takes many."""
TAKE_PER_SCAN = 1000
"""Outstations a worker takes at most per scan: thousands come in steps, not one storm
(a storm of takes and connections starved the lease's renewals on a loaded machine)."""
CONNECT_AGAIN = 1.0
"""Seconds before a taken outstation is connected again when the cluster could not be asked
whether a restore journal is left for it (D240)."""
SLACK = 50
"""A worker gives back only what exceeds its share by more than 1/SLACK of it (churn)."""
WATCH_EVERY = 0.25
"""Seconds between two looks at the lease (and at how late the loop runs)."""
LATE = 1.0
"""Seconds late a worker's loop runs before it says so (its polls go that late, D227)."""
SAY_EVERY = 30.0
"""Seconds between two such warnings at most."""


class Worker:
    """One worker: its lease, its holdings, and the loops that keep them."""

    def __init__(
        self,
        worker_id: str,
        master: Master,
        buckets: Buckets,
        subjects: Subjects,
        capacity: int,
        journals: ClusterJournals | None = None,
    ) -> None:
        self.id = worker_id
        self.journals = journals
        self.master = master
        self.buckets = buckets
        self.subjects = subjects
        self.capacity = capacity
        self.ttl = buckets.lease
        self.scan_every = max(0.25, min(2.0, self.ttl / 4))
        self.lease = WorkerLease(buckets.workers, worker_id, self.ttl, self._info)
        self.holdings = Holdings(buckets.leases, self.lease, self.drop)
        self.configs = Mirror(buckets.outstations, self._config_changed)
        self.lease_entries = Mirror(buckets.leases, self._lease_changed)
        self.live: dict[str, tuple[int, dict[str, object]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._connecting = asyncio.Semaphore(CONNECTING)
        # Of the outstations held, at the last scan (the workers bucket says): how many are
        # connected, and their exchanges by outcome since each was taken.
        self.connected = 0
        self.exchanges: dict[str, int] = {}
        self.counted_at = 0.0  # wall-clock time of those counts (what a reader divides by)
        # How late the loop ran (seconds): the worst since the last count, and the worst
        # of that period then (the workers bucket and status say it: D227).
        self.late = self.late_counted = self._late_asked = 0.0
        self._said_late = -SAY_EVERY
        master.command_fence(self._fence)

    def _info(self) -> dict[str, object]:
        return {
            "capacity": self.capacity,
            "held": len(self.holdings),
            "connected": self.connected,
            "exchanges": self.exchanges,
            "counted_at": self.counted_at,
            "late_ms": round(self.late_counted * 1000),
            "allow_control": self.master.allow_control,
        }

    def _fence(self, outstation: str, function: FunctionCode) -> None:
        self.holdings.fence(outstation)(function)

    def spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- running ------------------------------------------------------------------------

    async def run(self, stopping: asyncio.Event) -> None:
        await self.lease.start()
        self.configs.start()
        self.lease_entries.start()
        await self.configs.synced.wait()
        await self.lease_entries.synced.wait()
        loops = [
            asyncio.create_task(self._watching()),
            asyncio.create_task(self._scanning()),
        ]
        try:
            await stopping.wait()
        finally:
            for task in loops:
                task.cancel()
            await self.close()

    async def close(self) -> None:
        """Give back every outstation (so others take them at once) and end the lease."""
        for key in list(self.holdings.held):
            held = self.holdings.held[key]
            with contextlib.suppress(Exception):
                await self.master.remove(held.name)
            with contextlib.suppress(Exception):
                await self.holdings.release(key)
        with contextlib.suppress(Exception):
            await self.buckets.workers.delete(self.lease.key)
        self.lease.end()
        for task in list(self._tasks):
            task.cancel()
        await self.configs.close()
        await self.lease_entries.close()

    async def _watching(self) -> None:
        """When the lease ended (the renewer says so, or its time passed): every outstation
        dropped, then a new epoch (D154)."""
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(WATCH_EVERY)
            self._ran_late(loop.time() - before - WATCH_EVERY)
            if self.lease.valid():
                continue
            if self.holdings.held:
                log.warning("worker %s: lease lapsed: every outstation dropped", self.id)
                self.drop_all()
            try:
                await self.lease.start()
            except Exception as exc:
                log.warning("worker %s: a new lease cannot be taken: %s", self.id, exc)
                await asyncio.sleep(1.0)

    def _ran_late(self, late: float) -> None:
        """A wake-up ``late`` seconds past its time: the loop is busier than it can keep
        up with; its polls go late too, and miss once later than their interval."""
        self.late = max(self.late, late)
        self._late_asked = max(self._late_asked, late)
        now = time.monotonic()
        if late >= LATE and now - self._said_late >= SAY_EVERY:
            self._said_late = now
            log.warning(
                "worker %s: its loop ran %.1f s late (busy: polls of its %d outstations go "
                "late, and are missed past their interval)",
                self.id,
                late,
                len(self.holdings),
            )

    async def _scanning(self) -> None:
        while True:
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("worker %s: scan failed: %s", self.id, exc)
            await asyncio.sleep(self.scan_every * random.uniform(0.8, 1.2))

    # --- taking and giving back ----------------------------------------------------------

    def share(self) -> int:
        """How many outstations this worker should hold now: an even share of them among
        the live workers, those whose capacity is below it holding their capacity."""
        capacities = sorted(_capacity(info, self.capacity) for _, info in self.live.values())
        left, workers = len(self.configs.entries), max(1, len(capacities))
        for taken, capacity in enumerate(capacities):
            even = math.ceil(left / (workers - taken))
            if capacity >= even:
                return min(self.capacity, even)
            left -= capacity
        return self.capacity if capacities else min(self.capacity, left)

    async def scan(self) -> None:
        if not self.lease.valid():
            self.drop_all()
            return
        self._count()
        await self._read_live()
        share = self.share()
        held = len(self.holdings)
        if held > share + share // SLACK:
            for key in self._to_give_back(held - share):
                self.spawn(self._give_back(key))
        elif held < share:
            free, unseen = self._free()
            if unseen:
                # A lease names a worker the live workers read above did not show: one that
                # joined since. Read them again (after the lease was seen, so a holder still
                # alive shows now) before taking over what it holds (D214).
                await self._read_live()
                free, _ = self._free()
            free = free[: min(share - held, TAKE_PER_SCAN)]
            for start in range(0, len(free), CONNECTING):
                batch = free[start : start + CONNECTING]
                taken = await asyncio.gather(
                    *(self.holdings.take(key, name_of_key(key), rev) for key, rev in batch)
                )
                for (key, _), got in zip(batch, taken, strict=True):
                    if got is not None:
                        self.spawn(self._connect(key, got))

    def _to_give_back(self, count: int) -> list[str]:
        """The last ``count`` taken, those under an evaluation given back last (D214)."""
        evaluating = evaluations_of(self.master).running
        keys = list(self.holdings.held)[::-1]
        keys.sort(key=lambda key: evaluating(self.holdings.held[key].name))  # stable
        return keys[:count]

    async def _read_live(self) -> None:
        try:
            self.live = await live_workers(self.buckets.workers)
        except Exception as exc:  # a loaded cluster: the workers seen last time still stand
            log.warning("worker %s: the live workers cannot be read now: %s", self.id, exc)
        self.live[self.id] = (self.lease.epoch, self._info())

    def _free(self) -> tuple[list[tuple[str, int | None]], bool]:
        """Outstations no live lease holds: (key, revision of a lapsed lease or None); and
        whether a lease among them names a worker the live workers do not show at all."""
        free: list[tuple[str, int | None]] = []
        unseen = False
        for key in self.configs.entries:
            if key in self.holdings.held:
                continue
            entry = self.lease_entries.entries.get(key)
            if entry is None:
                free.append((key, None))
                continue
            holder = holder_of(entry[0])
            if holder is None or self.live.get(holder[0], (None,))[0] != holder[1]:
                free.append((key, entry[1]))
                unseen = unseen or (holder is not None and holder[0] not in self.live)
        random.shuffle(free)  # workers taking at once mostly try different ones
        return free, unseen

    async def _connect(self, key: str, held: Held) -> None:
        config = self.configs.entries.get(key)
        if config is None:
            await self.holdings.release(key)
            return
        async with self._connecting:
            if self.holdings.held.get(key) is not held:
                return
            try:
                settings = OutstationSettings.model_validate_json(config[0])
                if await self._journal_fetched(settings):
                    self.spawn(self._put_back(key, held))
                try:
                    status = await self.master.add(settings)
                except Conflict:  # dropped a moment ago and not yet removed: start afresh
                    await self._remove(settings.name)
                    status = await self.master.add(settings)
                body = b'{"id":null,"ok":true,"result":' + await encode(status) + b"}"
            except OperationError as exc:
                body = error_body(exc.kind, str(exc))
            except TRANSIENT as exc:
                # The cluster cannot say now whether a journal is left: kept, tried again.
                log.warning(
                    "worker %s: outstation %s not connected yet, the cluster cannot be asked "
                    "(%s); trying again",
                    self.id,
                    held.name,
                    exc,
                )
                self.spawn(self._connect_again(key, held))
                return
            except Exception as exc:
                body = error_body("request", f"outstation {held.name}: {exc}")
            log.info("worker %s: took outstation %s", self.id, held.name)
            if not held.added.done():
                held.added.set_result(body)

    async def _connect_again(self, key: str, held: Held) -> None:
        await asyncio.sleep(CONNECT_AGAIN)
        await self._connect(key, held)

    async def _journal_fetched(self, settings: OutstationSettings) -> bool:
        """Whether the cluster keeps a restore journal for the outstation (a lost worker's
        evaluation changed it, D212), written here; asked again across an election."""
        journals = self.journals
        if journals is None:
            return False
        fetched = await asked(lambda: journals.fetch(settings), attempt=JS_TIMEOUT)
        return fetched is not None

    async def _put_back(self, key: str, held: Held) -> None:
        assert self.journals is not None
        await self.journals.put_back(
            self.master,
            held.name,
            lambda: self.holdings.held.get(key) is held,
            self.holdings.confirm,
        )

    async def _give_back(self, key: str) -> None:
        held = self.holdings.held.get(key)
        if held is None:
            return
        log.info("worker %s: gives back outstation %s (more than its share)", self.id, held.name)
        await self._remove(held.name)
        await self.holdings.release(key)

    async def _remove(self, name: str) -> None:
        with contextlib.suppress(OperationError):
            await self.master.remove(name)

    def _count(self) -> None:
        connected, exchanges = 0, Counter[str]()
        for held in list(self.holdings.held.values()):
            try:
                session = self.master.session(held.name)
            except OperationError:
                continue
            connected += session.connected
            exchanges.update(session.counts)
        self.late_counted, self.late = self.late, 0.0
        self.connected, self.exchanges = connected, dict(exchanges)
        self.counted_at = time.time()

    def counts(self) -> dict[str, object]:
        """Counted now: held, connected, exchanges by outcome, when; and how late the
        loop ran at worst since the last time they were asked (``late_max_ms``)."""
        self._count()
        late, self._late_asked = self._late_asked, 0.0
        return {**self._info(), "epoch": self.lease.epoch, "late_max_ms": round(late * 1000)}

    def drop(self, name: str) -> None:
        """Close and forget outstation ``name`` now (its lease is not ours). Found by its
        key: dropping thousands is linear (a search of every holding for each held the
        loop, and every poll, 45 s and more at 5,000 after a lapsed lease: D210)."""
        self.holdings.forget(outstation_key(name))
        self.spawn(self._remove(name))

    def drop_all(self) -> None:
        for held in list(self.holdings.held.values()):
            self.drop(held.name)

    def _config_changed(self, key: str, value: bytes | None) -> None:
        if value is None and key in self.holdings.held:
            self.spawn(self._give_back(key))

    def _lease_changed(self, key: str, value: bytes | None) -> None:
        held = self.holdings.held.get(key)
        if held is None or value is None:
            return
        holder = holder_of(value)
        if holder is not None and holder[0] != self.id:
            log.warning("worker %s: outstation %s taken by %s", self.id, held.name, holder[0])
            self.drop(held.name)


def _capacity(info: dict[str, object], default: int) -> int:
    value = info.get("capacity", default)
    return value if isinstance(value, int) and value > 0 else default


def holder_of(value: bytes) -> tuple[str, int] | None:
    try:
        data = orjson.loads(value)
        return str(data["worker"]), int(data["epoch"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
