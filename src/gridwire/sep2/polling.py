"""Polling: keeps the timebase fed and notices when the head-end's structure changes.

Cadence. DeviceCapability is polled at its own pollRate; that poll is the connectivity
heartbeat and the structure check (DeviceCapability's links and this device's FSA list). Each
distinct Time resource is fetched once per round however many scopes link to it, every
``min(DeviceCapability pollRate, the Time's own pollRate)`` seconds, the Time's pollRate being
the schema default of 900 s when it carries none. The shorter wins because the management API
promises a clock that follows the cadence DeviceCapability advertises (a head-end commonly sends
Time with no pollRate while DeviceCapability says 300), while a Time resource that asks for
more frequent polling than that gets it; fetching a Time resource more often than its own rate
costs one small GET and only makes offsets fresher.

Failures. A Time resource that fails does not stop the others; when every one fetched in a
round fails, or DeviceCapability cannot be had, the connection has failed: status says why and
polls are retried with exponential backoff. 404 or 204 on an FSA's Time means that FSA has none;
on the global Time, or on DeviceCapability, the global resource has gone and the next round
rediscovers. A change of DeviceCapability's links or of this device's FSA list rediscovers at
once. What is wrong without failing the connection (a Time resource that fails, or leaves out
fields; a list discovery cannot read) is kept as a warning per subject, logged once when it
appears or changes, shown in status until it is solved.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from gridwire.process.clock import SYSTEM_CLOCK, Clock
from gridwire.sep2.config import DEFAULT_DCAP_PATH
from gridwire.sep2.discovery import (
    Getter,
    Structure,
    dcap_shape,
    discover,
    fetch_device_capability,
    find_end_device,
    fsa_shape,
    read_assignments,
)
from gridwire.sep2.errors import DiscoveryError, HeadEndError, ResourceError, Sep2Error
from gridwire.sep2.identity import DeviceIdentity
from gridwire.sep2.parsing import parse_time
from gridwire.sep2.status import ConnectionStateName, ConnectionStatus, PollingStatus
from gridwire.sep2.timebase import Timebase
from gridwire.sep2.transport import Fetched

log = logging.getLogger("gridwire.sep2.polling")


@dataclass(frozen=True, slots=True)
class PollSettings:
    dcap_path: str = DEFAULT_DCAP_PATH
    page_size: int = 25
    retry_initial_seconds: float = 1.0
    retry_max_seconds: float = 60.0
    min_poll_seconds: float = 1.0  # floor under any pollRate a head-end advertises


# Subjects of warnings: this device's registration, and per Time href its failures and the
# fields it leaves out (the discovery module's keys name the two lists).
DEVICE_NOTICE = "EndDevice"
TIME_NOTICE = "Time"
FIELDS_NOTICE = "fields"
TIME_NOTICES = (f"{TIME_NOTICE} ", f"{FIELDS_NOTICE} ")


def _left_out(url: str, missing: tuple[str, ...]) -> str | None:
    if not missing:
        return None
    return (
        f"Time {url} leaves out {', '.join(missing)}, which IEEE 2030.5 requires: its "
        "currentTime is used, and what needs them is null in the reading"
    )


class AllTimeFailed(HeadEndError):
    """Every Time resource fetched in a round failed."""


class Poller:
    """Discovers, then polls ``headend`` for ever (:meth:`run`), feeding ``timebase``.
    :meth:`cycle` runs one round and is what tests and ``--once`` drive directly."""

    def __init__(
        self,
        headend: Getter,
        identity: DeviceIdentity,
        timebase: Timebase,
        settings: PollSettings | None = None,
        *,
        server: str | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.headend = headend
        self.identity = identity
        self.timebase = timebase
        self.settings = settings or PollSettings()
        self.server = server
        self.clock = clock
        self.structure: Structure | None = None
        self.rediscoveries = 0
        self.last_error: Sep2Error | None = None
        self._needs_discovery = True
        self._dcap_due = 0.0
        self._time_due: dict[str, float] = {}
        self._time_interval: dict[str, float] = {}
        self._warnings: dict[str, str] = {}  # subject -> one line, while it stands
        self._failures = 0
        self._state: ConnectionStateName = "starting"
        self._since = clock.monotonic()
        self._last_success: float | None = None
        self._wake: asyncio.Event | None = None

    # -- cadence ----------------------------------------------------------------------------

    @property
    def dcap_interval(self) -> float | None:
        if self.structure is None:
            return None
        return max(self.settings.min_poll_seconds, self.structure.dcap.effective_poll_rate)

    def _time_interval_for(self, own_rate: int) -> float:
        dcap = self.dcap_interval or own_rate
        return max(self.settings.min_poll_seconds, min(dcap, own_rate))

    def _next_delay(self, now: float) -> float:
        dues = [self._dcap_due]
        dues += [self._time_due.get(h, 0.0) for h in self.timebase.time_hrefs()]
        return max(0.0, min(dues) - now)

    def poll_now(self) -> None:
        """Make everything due and wake :meth:`run`."""
        self._dcap_due = 0.0
        self._time_due.clear()
        if self._wake is not None:
            self._wake.set()

    # -- rounds -----------------------------------------------------------------------------

    async def cycle(self, *, quiet: bool = False) -> float:
        """One round: discovery or the structure check when due, then the Time resources that
        are due. Returns the seconds until something is due again. A failed round is logged
        (once while it stays the same) unless ``quiet``: its caller reports ``last_error``."""
        polled = self.clock.monotonic() >= self._dcap_due
        try:
            if polled and self._needs_discovery:
                await self._discover()
            elif polled:
                await self._check_structure()
            answered = await self._fetch_times()
        except (HeadEndError, ResourceError) as exc:
            return self._failed(exc, quiet)
        except Exception as exc:  # a bug, or a head-end answer nothing above foresaw
            failure = Sep2Error(f"polling round failed: {exc!r}")
            if str(failure) != str(self.last_error):  # the traceback once, not every retry
                log.error("%s", failure, exc_info=exc)
            return self._failed(failure, quiet=True)
        if answered or polled:
            self._succeeded()
        self.timebase.review()
        return self._next_delay(self.clock.monotonic())

    async def _discover(self) -> None:
        if self.structure is not None:
            self.rediscoveries += 1
        self.timebase.release()
        structure = await discover(
            self.headend,
            self.settings.dcap_path,
            self.identity,
            self.settings.page_size,
            self._notice,
        )
        self._apply(structure)
        self._notice(
            DEVICE_NOTICE,
            None
            if structure.end_device
            else f"head-end {self.server} lists no EndDevice with LFDI {self.identity.lfdi}; "
            "observing global Time only",
        )

    def _apply(self, structure: Structure) -> None:
        self.structure = structure
        self.timebase.set_structure(structure.global_time_href, structure.fsa_links())
        hrefs = set(self.timebase.time_hrefs())
        self._time_due = {h: 0.0 for h in hrefs}
        self._time_interval = {h: v for h, v in self._time_interval.items() if h in hrefs}
        for key in [k for k in self._warnings if k.partition(" ")[2] not in hrefs]:
            if key.startswith(TIME_NOTICES):
                del self._warnings[key]  # a Time resource no longer linked to
        self._needs_discovery = False
        self._dcap_due = self.clock.monotonic() + (self.dcap_interval or 0.0)

    async def _check_structure(self) -> None:
        """DeviceCapability's poll: rediscover when what discovery followed has changed."""
        assert self.structure is not None
        old = self.structure
        dcap = await fetch_device_capability(self.headend, self.settings.dcap_path)
        changed = dcap_shape(dcap) != old.dcap_shape()
        if not changed and old.end_device is None:
            page = self.settings.page_size
            edl = dcap.end_device_list_link
            found = await find_end_device(self.headend, edl, self.identity, page, self._notice)
            changed = found is not None
        if not changed and old.end_device is not None:
            fsas = await read_assignments(
                self.headend, old.end_device, self.settings.page_size, self._notice
            )
            changed = fsa_shape(fsas) != old.fsa_shape()
        if changed:
            log.info("head-end %s changed its structure; rediscovering", self.server)
            await self._discover()
            return
        self.structure = Structure(dcap, old.end_device, old.fsas)
        self._dcap_due = self.clock.monotonic() + (self.dcap_interval or 0.0)

    async def _fetch_times(self) -> bool:
        """Fetch each due Time resource once. True when the head-end answered any of them."""
        now = self.clock.monotonic()
        due = [h for h in self.timebase.time_hrefs() if self._time_due.get(h, 0.0) <= now]
        answered, failures = 0, list[Sep2Error]()
        global_href = self.structure.global_time_href if self.structure else None
        for href in due:
            try:
                fetched = await self.headend.get(href)
                if fetched.empty:
                    self._time_absent(href, fetched, global_href)
                    answered += 1
                    continue
                time = parse_time(fetched.require_ok(), fetched.url)
            except (HeadEndError, ResourceError) as exc:
                failures.append(exc)
                self._notice(f"{TIME_NOTICE} {href}", str(exc))
                self._time_due[href] = now + self._time_interval.get(href, self.dcap_interval or 0)
                continue
            self.timebase.observe(time, href, fetched.wall, fetched.monotonic)
            interval = self._time_interval_for(time.effective_poll_rate)
            self._time_interval[href] = interval
            self._time_due[href] = fetched.monotonic + interval
            self._notice(f"{TIME_NOTICE} {href}", None)
            self._notice(f"{FIELDS_NOTICE} {href}", _left_out(fetched.url, time.missing))
            answered += 1
        if self._time_interval:
            self.timebase.set_time_poll_interval(max(self._time_interval.values()))
        if due and not answered:
            raise AllTimeFailed(f"every Time resource failed; first: {failures[0]}")
        return answered > 0

    def _time_absent(self, href: str, fetched: Fetched, global_href: str | None) -> None:
        scopes = self.timebase.scopes_of(href)
        self.timebase.absent(href)
        self._time_due[href] = self._dcap_due
        if href == global_href:
            self._notice(
                f"{TIME_NOTICE} {href}",
                f"global Time {fetched.url} answered HTTP {fetched.status}; rediscovering at "
                "the next poll",
            )
            self._needs_discovery = True
        else:
            self._notice(f"{TIME_NOTICE} {href}", None)
            log.info(
                "Time %s answered HTTP %s: %s have no Time of their own",
                fetched.url,
                fetched.status,
                scopes,
            )

    def _notice(self, key: str, message: str | None) -> None:
        """Keep (and log once) or drop the warning about ``key``."""
        if message is None:
            self._warnings.pop(key, None)
        elif self._warnings.get(key) != message:
            self._warnings[key] = message
            log.warning("%s", message)

    # -- connection state -------------------------------------------------------------------

    def _set_state(self, state: ConnectionStateName) -> None:
        if state != self._state:
            self._state = state
            self._since = self.clock.monotonic()

    def _succeeded(self) -> None:
        if self._state != "connected":
            log.info("connected to head-end %s", self.server)
        self._set_state("connected")
        self.last_error = None
        self._failures = 0
        self._last_success = self.clock.monotonic()

    def _failed(self, exc: Sep2Error, quiet: bool) -> float:
        if isinstance(exc, DiscoveryError):
            self._needs_discovery = True
        if not quiet and (self._state != "failed" or str(exc) != str(self.last_error)):
            log.warning("%s", exc)
        self._set_state("failed")
        self.last_error = exc
        self._failures += 1
        s = self.settings
        delay = min(s.retry_max_seconds, s.retry_initial_seconds * 2.0 ** (self._failures - 1))
        self._dcap_due = self.clock.monotonic() + delay
        self._time_due = {h: self._dcap_due for h in self._time_due}
        return delay

    def stopped(self) -> None:
        self._set_state("stopped")

    def connection_status(self) -> ConnectionStatus:
        now = self.clock.monotonic()
        return ConnectionStatus(
            state=self._state,
            server=self.server,
            error=str(self.last_error) if self.last_error and self._state == "failed" else None,
            warnings=list(self._warnings.values()),
            since_seconds=round(now - self._since, 3),
            last_success_age_seconds=(
                None if self._last_success is None else round(now - self._last_success, 3)
            ),
        )

    def polling_status(self) -> PollingStatus:
        return PollingStatus(
            dcap_poll_seconds=self.dcap_interval,
            time_poll_seconds=max(self._time_interval.values(), default=None),
            rediscoveries=self.rediscoveries,
        )

    # -- the loop ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Poll until cancelled."""
        self._wake = asyncio.Event()
        try:
            while True:
                self._wake.clear()
                delay = await self.cycle()
                # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that comes
                # as the event is set (stop() racing poll_now()), and the loop would go on.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._wake.wait()
        finally:
            self.stopped()
