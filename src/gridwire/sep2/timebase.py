"""The timebase: the head-end's clock as offsets from the device's own, one per scope.

Per IEEE 2030.5 section 9.2.3 the Time resource an FSA links to is authoritative for events of
that FSA's programs, so the timebase keeps one offset for the global scope (DeviceCapability's
Time) and one per FSA, and schedules each event against its own. No I/O happens here: the
poller hands in each Time resource with the moment it was received.

- An offset is the head-end's time minus the device's wall clock at receipt. The head-end sends
  whole seconds, truncated, so its time is taken at the middle of the second it names
  (:data:`TRUNCATION_CENTRE`), which halves the worst bias.
- Ages run on the monotonic clock: stepping the wall clock changes no age.
- An FSA observation older than :attr:`Timebase.fsa_stale_seconds` while the global one is
  newer yields to the global offset, with one warning the first time per scope; it never falls
  back to a staler observation, and an FSA with nothing to fall back to keeps its own.
- Observations survive a rediscovery; withdrawn FSAs are forgotten.
- Once any Time resource has been observed a reading stays available for good (the contract's
  availability has no way back to unavailable): when no scope has an observation left (an FSA's
  Time answered 404, or the FSA was withdrawn, and nothing global was ever observed) the latest
  observation made stands in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from gridwire.process.clock import SYSTEM_CLOCK, Clock
from gridwire.sep2.resources import DEFAULT_POLL_RATE, Time
from gridwire.sep2.status import FsaStatus, ScopeStatus, TimebaseStatus

TRUNCATION_CENTRE = 0.5
MIN_FSA_STALE_SECONDS = 3600.0
STALE_POLL_INTERVALS = 3

log = logging.getLogger("gridwire.sep2.timebase")


@dataclass(frozen=True, slots=True)
class Observation:
    """One Time resource as received."""

    href: str
    offset_seconds: float
    quality: int | None  # None when the Time resource left it out
    wall: float  # the device's wall clock at receipt
    monotonic: float  # the monotonic clock at receipt
    time: Time

    def age(self, monotonic_now: float) -> float:
        return max(0.0, monotonic_now - self.monotonic)


@dataclass(frozen=True, slots=True)
class FsaLink:
    """An FSA as discovery found it: its path, description and Time link (if any)."""

    href: str
    description: str | None
    time_href: str | None


@dataclass(frozen=True, slots=True)
class Effective:
    """The observation an event of a scope is scheduled against, and why."""

    observation: Observation
    scope: str  # "global", or the path of the FSA whose own observation this is
    bypassed: bool  # an FSA's own observation was stale and the global one stands in

    @property
    def offset_seconds(self) -> float:
        return self.observation.offset_seconds


@dataclass(frozen=True, slots=True)
class Held:
    """The observation ``/time`` reports, and whether its Time resource is held right now."""

    observation: Observation
    holding: bool


@dataclass(slots=True)
class _Scope:
    time_href: str | None
    description: str | None = None
    observation: Observation | None = None
    warned: bool = False


GLOBAL = "global"


class Timebase:
    """Offsets per scope, thread-safe. ``enabled`` false puts :meth:`now` on the local clock,
    while observations go on being kept and reported."""

    def __init__(
        self,
        clock: Clock = SYSTEM_CLOCK,
        *,
        enabled: bool = True,
        fsa_stale_seconds: float | None = None,
    ) -> None:
        self.clock = clock
        self.enabled = enabled
        self._override = fsa_stale_seconds
        self._poll_interval = float(DEFAULT_POLL_RATE)
        self._lock = threading.RLock()
        self._global = _Scope(time_href=None)
        self._fsas: dict[str, _Scope] = {}
        self._holding: set[str] = set()
        self._latest: Observation | None = None  # the last observation of any scope

    # -- settings ---------------------------------------------------------------------------

    @property
    def fsa_stale_seconds(self) -> float:
        """The override if one is set, else three intervals of the Time poll cadence, never
        below :data:`MIN_FSA_STALE_SECONDS`."""
        if self._override is not None:
            return self._override
        return max(MIN_FSA_STALE_SECONDS, STALE_POLL_INTERVALS * self._poll_interval)

    def set_time_poll_interval(self, seconds: float) -> None:
        """The interval Time is actually polled at (the longest, where they differ)."""
        with self._lock:
            self._poll_interval = seconds

    # -- structure --------------------------------------------------------------------------

    def set_structure(self, global_time_href: str | None, fsas: Iterable[FsaLink]) -> None:
        """The scopes discovery found. Observations of scopes that remain are kept (even when
        their link moved); FSAs no longer listed are forgotten, and a Time resource no scope
        links to any more is no longer held."""
        with self._lock:
            self._global.time_href = global_time_href
            kept: dict[str, _Scope] = {}
            for link in fsas:
                scope = self._fsas.get(link.href) or _Scope(time_href=None)
                scope.time_href = link.time_href
                scope.description = link.description
                kept[link.href] = scope
            self._fsas = kept
            self._holding &= set(self.time_hrefs())

    def release(self) -> None:
        """Stop holding every Time resource (rediscovery has begun); offsets stay."""
        with self._lock:
            self._holding.clear()

    def time_hrefs(self) -> list[str]:
        """The distinct Time resources the scopes link to, global first."""
        with self._lock:
            hrefs = [self._global.time_href] + [s.time_href for s in self._fsas.values()]
            return list(dict.fromkeys(h for h in hrefs if h is not None))

    def scopes_of(self, href: str) -> list[str]:
        """The scopes (``global`` and FSA paths) that link to the Time resource ``href``."""
        with self._lock:
            names = [GLOBAL] if self._global.time_href == href else []
            return names + [name for name, s in self._fsas.items() if s.time_href == href]

    # -- observations -----------------------------------------------------------------------

    def observe(self, time: Time, href: str, wall: float, monotonic: float) -> Observation:
        """Record ``time``, fetched from ``href`` and received at ``wall``/``monotonic``, for
        every scope that links to ``href``."""
        observation = Observation(
            href=href,
            offset_seconds=time.current_time + TRUNCATION_CENTRE - wall,
            quality=time.quality,
            wall=wall,
            monotonic=monotonic,
            time=time,
        )
        with self._lock:
            for scope in self._all_scopes():
                if scope.time_href == href:
                    scope.observation = observation
            self._holding.add(href)
            self._latest = observation
        return observation

    def absent(self, href: str) -> None:
        """The Time resource ``href`` answered 404 or 204: the FSAs linking to it have none of
        their own. The global observation is kept (rediscovery follows)."""
        with self._lock:
            for scope in self._fsas.values():
                if scope.time_href == href:
                    scope.observation = None
            self._holding.discard(href)

    def _all_scopes(self) -> list[_Scope]:
        return [self._global, *self._fsas.values()]

    # -- choosing an observation ------------------------------------------------------------

    def _stale(self, scope: _Scope, now: float) -> bool:
        own, other = scope.observation, self._global.observation
        return (
            own is not None
            and other is not None
            and own.age(now) > self.fsa_stale_seconds
            and other.monotonic > own.monotonic
        )

    def _effective(self, fsa: str | None, now: float) -> Effective | None:
        scope = self._fsas.get(fsa) if fsa is not None else None
        if scope is not None and scope.observation is not None and fsa is not None:
            if not self._stale(scope, now):
                return Effective(scope.observation, fsa, bypassed=False)
            fallback = self._global.observation
            assert fallback is not None  # _stale() says so
            if not scope.warned:
                scope.warned = True
                log.warning(
                    "FSA %s: its Time %s was observed %.0f s ago (over %.0f s) and the global "
                    "Time %s is newer; scheduling its programs on the global offset",
                    fsa,
                    scope.observation.href,
                    scope.observation.age(now),
                    self.fsa_stale_seconds,
                    fallback.href,
                )
            return Effective(fallback, GLOBAL, bypassed=True)
        if self._global.observation is not None:
            return Effective(self._global.observation, GLOBAL, bypassed=False)
        return None

    def effective(self, fsa: str | None = None) -> Effective | None:
        """The observation events of ``fsa`` (or global events, for None) are scheduled on."""
        with self._lock:
            return self._effective(fsa, self.clock.monotonic())

    def review(self) -> None:
        """Evaluate every FSA now, so a bypass is warned about even before anything asks."""
        with self._lock:
            now = self.clock.monotonic()
            for name in list(self._fsas):
                self._effective(name, now)

    def now(self, fsa: str | None = None) -> float:
        """The time to schedule events of ``fsa`` by: the local clock plus the effective
        offset, or the local clock alone when disabled or before any observation."""
        wall = self.clock.wall()
        if not self.enabled:
            return wall
        chosen = self.effective(fsa)
        return wall if chosen is None else wall + chosen.offset_seconds

    def held(self) -> Held | None:
        """What ``/time`` reports: the global observation, unless there is none or it is older
        than the staleness threshold while an FSA's is newer; then the newest FSA's. With no
        scope holding an observation, the latest ever made; None only before the first."""
        with self._lock:
            now = self.clock.monotonic()
            chosen = self._global.observation
            newest = max(
                (s.observation for s in self._fsas.values() if s.observation is not None),
                key=lambda o: o.monotonic,
                default=None,
            )
            if newest is not None and (
                chosen is None
                or (
                    chosen.age(now) > self.fsa_stale_seconds and newest.monotonic > chosen.monotonic
                )
            ):
                chosen = newest
            chosen = chosen or self._latest
            if chosen is None:
                return None
            return Held(chosen, chosen.href in self._holding)

    # -- reporting --------------------------------------------------------------------------

    def status(self) -> TimebaseStatus:
        with self._lock:
            now = self.clock.monotonic()
            entries = [
                FsaStatus(
                    fsa=name,
                    description=scope.description,
                    stale=self._stale(scope, now),
                    **_scope_status(scope, now).model_dump(),
                )
                for name, scope in self._fsas.items()
            ]
            known = self._global.observation is not None or self._global.time_href is not None
            return TimebaseStatus.model_validate(
                {
                    "global": _scope_status(self._global, now) if known else None,
                    "per_fsa": entries,
                    "fsa_stale_seconds": self.fsa_stale_seconds,
                }
            )


def _scope_status(scope: _Scope, now: float) -> ScopeStatus:
    o = scope.observation
    if o is None:
        return ScopeStatus(
            offset_seconds=None, quality=None, href=scope.time_href, age_seconds=None
        )
    return ScopeStatus(
        offset_seconds=round(o.offset_seconds, 3),
        quality=o.quality,
        href=o.href,
        age_seconds=round(o.age(now), 3),
    )
