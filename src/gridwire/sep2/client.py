"""The IEEE 2030.5 client as a library: settings in, a running poller and timebase out.

``Sep2Client`` puts together the TLS context and device identity (:mod:`.tls`,
:mod:`.identity`), the head-end connection (:mod:`.transport`), the timebase and the poller.
The timebase and the poller are usable apart from it, and neither knows about HTTP APIs.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from pathlib import Path
from types import TracebackType

import httpx

from gridwire.errors import ConfigError
from gridwire.process.clock import SYSTEM_CLOCK, Clock
from gridwire.sep2.config import Sep2Config
from gridwire.sep2.identity import DeviceIdentity, load_identity
from gridwire.sep2.links import prefixed
from gridwire.sep2.polling import Poller, PollSettings
from gridwire.sep2.reading import TimeReading, TimeUnavailable, time_reading
from gridwire.sep2.status import ClientStatus, DeviceStatus
from gridwire.sep2.timebase import Timebase
from gridwire.sep2.tls import client_context
from gridwire.sep2.transport import HeadEnd


class Sep2Client:
    """Observes a head-end's Time resources. Use as ``async with Sep2Client(config) as c`` (or
    :meth:`start` / :meth:`stop`); :meth:`observe_once` runs a single round instead."""

    def __init__(
        self,
        config: Sep2Config,
        *,
        clock: Clock = SYSTEM_CLOCK,
        ssl_context: ssl.SSLContext | None = None,
        identity: DeviceIdentity | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        server, tls = config.server, config.tls
        if server.url is None:
            raise ConfigError("server.url is not set (give --server URL or server.url)")
        self.config = config
        context = ssl_context if ssl_context is not None else client_context(tls)
        if identity is None:
            if tls is None:
                raise ConfigError("tls.certificate is not set")
            identity = load_identity(Path(tls.certificate))
        self.identity = identity
        self.timebase = Timebase(
            clock, enabled=server.use_server_time, fsa_stale_seconds=server.fsa_stale_seconds
        )
        self.headend = HeadEnd(
            server.url,
            context,
            timeout=server.timeout_seconds,
            server_name=None if tls is None else tls.server_name,
            clock=clock,
            transport=transport,
        )
        self.poller = Poller(
            self.headend,
            identity,
            self.timebase,
            PollSettings(
                dcap_path=prefixed(server.url, server.dcap_path),
                page_size=server.page_size,
                retry_initial_seconds=server.retry_initial_seconds,
                retry_max_seconds=server.retry_max_seconds,
            ),
            server=server.url,
            clock=clock,
        )
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start polling in the background of the running event loop."""
        if self._task is None:
            self._task = asyncio.create_task(self.poller.run(), name="gridwire-sep2-poller")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.poller.stopped()
        await self.headend.aclose()

    async def __aenter__(self) -> Sep2Client:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def observe_once(self) -> TimeReading | TimeUnavailable:
        """Discover and fetch every Time resource once; raise the failure if the round failed."""
        self.poller.poll_now()
        await self.poller.cycle(quiet=True)  # the failure is raised, not logged as well
        if self.poller.last_error is not None:
            raise self.poller.last_error
        return self.time_reading()

    def time_reading(self) -> TimeReading | TimeUnavailable:
        return time_reading(self.timebase)

    def now(self, fsa: str | None = None) -> float:
        """The time to schedule events of ``fsa`` (or global events) by; see Timebase.now."""
        return self.timebase.now(fsa)

    def status(self) -> ClientStatus:
        structure = self.poller.structure
        end_device = structure.end_device if structure else None
        return ClientStatus(
            connection=self.poller.connection_status(),
            device=DeviceStatus(
                lfdi=self.identity.lfdi,
                sfdi=self.identity.sfdi,
                end_device=end_device.href if end_device else None,
            ),
            polling=self.poller.polling_status(),
            timebase_enabled=self.timebase.enabled,
            timebase=self.timebase.status(),
        )
