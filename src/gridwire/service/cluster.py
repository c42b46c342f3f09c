"""Running a front (the service over the cluster, :mod:`gridwire.cluster`) or a worker.

async with open_front(config, cluster) as service: ...      # for run_console/run_line
exit_code = await run_worker(config, cluster, capacity=5000)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from nats.aio.client import Client

from gridwire.cluster.front import ClusterDispatcher, EventRelay, put_configured
from gridwire.cluster.journals import ClusterJournals
from gridwire.cluster.mirror import Mirror
from gridwire.cluster.renewer import Renewer
from gridwire.cluster.serving import WorkerServer
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import Buckets, Subjects, connect, open_buckets
from gridwire.cluster.worker import Worker
from gridwire.der.profiles import ProfileLoader
from gridwire.evaluate.journal import JOURNAL_SINKS
from gridwire.master import Master, OutstationSettings
from gridwire.operations.declaration import OperationTable
from gridwire.process.runtime import settle_heap
from gridwire.service.config import ServiceConfig
from gridwire.service.runner import Opener, check_files
from gridwire.transports.service import Service

log = logging.getLogger("gridwire.cluster")
Announce = Callable[[str], None]


def _callbacks(who: str) -> dict[str, Any]:
    async def disconnected() -> None:
        log.warning("%s: NATS connection lost, reconnecting", who)

    async def reconnected() -> None:
        log.info("%s: NATS connection made again", who)

    async def error(exc: Exception) -> None:
        log.debug("%s: NATS: %s", who, exc)

    return {
        "disconnected_cb": disconnected,
        "reconnected_cb": reconnected,
        "error_cb": error,
    }


@asynccontextmanager
async def _cluster(settings: ClusterSettings, who: str) -> AsyncIterator[tuple[Client, Buckets]]:
    nc = await connect(settings, who, **_callbacks(who))
    try:
        yield nc, await open_buckets(nc, settings)
    finally:
        with contextlib.suppress(Exception):
            await nc.drain()


def front_opener(settings: ClusterSettings) -> Opener:
    """The opener ``run_console``/``run_line`` take to serve the cluster."""

    def opener(
        config: ServiceConfig,
        table: OperationTable | None,
        announce: Announce | None,
        extra: list[OutstationSettings] | None,
    ) -> AbstractAsyncContextManager[Service]:
        return open_front(config, settings, table, announce)

    return opener


@asynccontextmanager
async def open_front(
    config: ServiceConfig,
    settings: ClusterSettings,
    table: OperationTable | None = None,
    announce: Announce | None = None,
) -> AsyncIterator[Service]:
    """The service over the cluster (in place of :func:`gridwire.service.runner.open_service`):
    the configured outstations are written to the cluster, not connected here."""
    check_files(config)
    master = Master(allow_control=config.allow_control, profiles=ProfileLoader(config.tables))
    service = Service(
        master, table, device_profile=config.device_profile, state_dir=config.state_dir
    )
    subjects = Subjects(settings.prefix)
    async with _cluster(settings, "gridwire front") as (nc, buckets):
        configs, leases = Mirror(buckets.outstations), Mirror(buckets.leases)
        configs.start()
        leases.start()
        relay = EventRelay(nc, subjects, service.context)
        await relay.start()
        service.dispatcher = ClusterDispatcher(
            service.table, service.context, nc, buckets, subjects, configs, leases
        )
        await put_configured(buckets, config.outstations)
        if announce is not None:
            announce(f"front of the cluster at {','.join(settings.servers)}")
        try:
            yield service
        finally:
            relay.close()
            await configs.close()
            await leases.close()
            await master.close()


SETTLE_EVERY = 5.0
"""Seconds between a worker's looks at whether its heap should be settled again."""


async def _settling(worker: Worker) -> None:
    """The worker's heap settled as serve's is once its outstations are added (D60, D225):
    first SETTLE_EVERY seconds after start, then whenever it holds more outstations than at
    the last settling and every one taken has been connected (or failed to be). A worker's
    outstations come after it starts, so one settling at start would leave every
    outstation's objects for the collector to walk, at CPython's default thresholds."""
    settled = -1
    while True:
        await asyncio.sleep(SETTLE_EVERY)
        held = worker.holdings.held
        if len(held) > settled and all(taken.added.done() for taken in held.values()):
            settle_heap()
            settled = len(held)


def worker_name() -> str:
    """A worker's name: host, process and a random part (subject-safe)."""
    host = "".join(c if c.isalnum() or c in "-_" else "-" for c in socket.gethostname())
    return f"{host[:32]}-{os.getpid()}-{secrets.token_hex(3)}"


async def run_worker(
    config: ServiceConfig,
    settings: ClusterSettings,
    *,
    capacity: int,
    name: str | None = None,
    announce: Announce = print,
) -> int:
    """``gridwire worker``: until a signal."""
    check_files(config)
    master = Master(
        allow_control=config.allow_control,
        capture=config.capture,
        profiles=ProfileLoader(config.tables),
    )
    wid = name or worker_name()
    # Each worker its own state directory: journals meet in the cluster's bucket (D158).
    state_dir = config.state_dir or Path(tempfile.mkdtemp(prefix=f"gridwire-worker-{wid}-"))
    service = Service(master, None, device_profile=config.device_profile, state_dir=state_dir)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()

    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stopping.set)
    try:
        async with (
            contextlib.AsyncExitStack() as stack,
            _cluster(settings, f"gridwire worker {wid}") as (nc, buckets),
        ):
            journals = ClusterJournals(buckets.journals, state_dir)
            JOURNAL_SINKS.append(journals.sink)
            stack.callback(JOURNAL_SINKS.remove, journals.sink)
            worker = Worker(wid, master, buckets, Subjects(settings.prefix), capacity, journals)
            server = WorkerServer(nc, worker, service.dispatcher)
            await server.start()
            renewer = Renewer(worker.lease, settings, f"{settings.prefix}-workers")
            renewer.start()
            stack.callback(renewer.stop)
            control = "control allowed" if config.allow_control else "read-only"
            announce(
                f"gridwire worker {wid} ({control}): capacity {capacity}, lease "
                f"{buckets.lease:g} s, cluster {','.join(settings.servers)}"
            )
            settling = asyncio.create_task(_settling(worker))
            try:
                await worker.run(stopping)
            finally:
                settling.cancel()
                await server.close()
    finally:
        await master.close()
    return 0
