"""The gateway at work: the 2030.5 client (its poller and timebase), the DER function set's
feed, the scheduler, the applier and the store, in one loop.

Each pass: poll what is due of the DER function set; schedule on each FSA's offset (nothing
is scheduled before the head-end's clock has been observed once); store the event records
and the Responses they owe (before acting); post the Responses owed, oldest first, each until
the head-end answers it (before the DER is touched, so a DER that is slow to answer does not
delay them); apply the difference to the DER. The loop sleeps until the
next event start or end, the next poll, or a retry, whichever is first (at most
:data:`MAX_SLEEP`), so an event starts within a pass of its moment on the head-end's clock.

When the head-end cannot be reached the last programs read stand: running events run to their
end on the offset last observed, then the default applies. When the DER cannot be reached
nothing is held as applied, so the next pass (every :data:`RETRY_SECONDS`) sends what the
events still running ask for once it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import asdict
from typing import Any

from gridwire.derops.der_master import Der
from gridwire.errors import GridwireError
from gridwire.gateway.apply import Applier, Change
from gridwire.gateway.feed import Feed
from gridwire.gateway.modes import RULES
from gridwire.gateway.reporter import Reporter
from gridwire.gateway.schedule import Decision, Scheduler
from gridwire.gateway.store import Store
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.errors import HeadEndError
from gridwire.sep2.parsing import NAMESPACE

log = logging.getLogger("gridwire.gateway")

MAX_SLEEP = 5.0
RETRY_SECONDS = 2.0
KEEP_SECONDS = 7 * 86400.0  # events over and answered, and steps sent, are kept this long


def response_body(lfdi: str, mrid: str, status: int, created: int) -> bytes:
    """A DERControlResponse (IEEE 2030.5 Response: createdDateTime, endDeviceLFDI, status,
    subject)."""
    return (
        f'<DERControlResponse xmlns="{NAMESPACE}"><createdDateTime>{created}</createdDateTime>'
        f"<endDeviceLFDI>{lfdi}</endDeviceLFDI><status>{status}</status>"
        f"<subject>{mrid}</subject></DERControlResponse>"
    ).encode()


class Gateway:
    def __init__(
        self,
        client: Sep2Client,
        der: Der,
        store: Store,
        *,
        seed: int | str = 0,
        readings: tuple[str, ...] = (),
        readings_seconds: float = 10.0,
        post_seconds: float | None = 300.0,
        der_type: int = 1,
        keep_seconds: float = KEEP_SECONDS,
    ) -> None:
        self.client = client
        self.der = der
        self.store = store
        self.feed = Feed(
            client.headend, client.config.server.page_size, clock=client.timebase.clock
        )
        self.scheduler = Scheduler(store.get("seed", seed), store.events())
        store.put("seed", self.scheduler.seed)
        unknown = store.settle_attempts()
        if unknown:
            log.warning(
                "%d Response(s) were being posted when the gateway stopped: taken as posted, "
                "not sent again",
                unknown,
            )
        self.applier = Applier(der, self._save_held)
        self._load_held()
        self.surveyed = False
        self.der_error: str | None = None
        self.last: Decision | None = None
        self.passes = 0
        self.keep_seconds = keep_seconds
        self.pruned = 0  # event records dropped since start
        self.readings: dict[str, Any] = {}
        self._reading_names = readings
        self._readings_seconds = readings_seconds
        self._readings_due = 0.0
        self.reporter = (
            None
            if post_seconds is None
            else Reporter(
                client,
                der,
                store,
                supported=self._supported_modes,
                enabled=self._enabled_modes,
                post_seconds=post_seconds,
                der_type=der_type,
            )
        )
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- persistence of what is held --------------------------------------------------------

    def _save_held(self) -> None:
        held = self.applier.held
        self.store.put(
            "held",
            {
                "points": held.points,
                "functions": sorted(held.functions),
                "curves": held.curves,
                "pending": held.pending,
                "pending_functions": held.pending_functions,
                "pending_sources": held.pending_sources,
            },
        )
        self.store.put("found", self.applier.found)
        self.store.put("found_enabled", self.applier.found_enabled)

    def _load_held(self) -> None:
        held = self.store.get("held", {})
        self.applier.held.points.update(held.get("points", {}))
        self.applier.held.functions.update(held.get("functions", []))
        self.applier.held.curves.update(held.get("curves", {}))
        self.applier.held.pending.update(held.get("pending", {}))
        self.applier.held.pending_functions.update(held.get("pending_functions", {}))
        self.applier.held.pending_sources.extend(held.get("pending_sources", []))
        self.applier.found.update(self.store.get("found", {}))
        self.applier.found_enabled.update(self.store.get("found_enabled", {}))

    # -- life -------------------------------------------------------------------------------

    async def start(self) -> None:
        await self.client.start()
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="gridwire-gateway")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.client.stop()

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            self._wake.clear()
            delay = await self.step()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()

    # -- one pass ---------------------------------------------------------------------------

    async def step(self) -> float:
        """One pass (see the module's notes); the seconds until the next is due."""
        self.passes += 1
        structure = self.client.poller.structure
        if structure is not None:
            await self.feed.poll(structure)
        if not await self._survey():
            return RETRY_SECONDS
        if self.client.timebase.enabled and self.client.timebase.held() is None:
            return min(1.0, self.feed.next_due())  # no head-end clock yet: nothing scheduled
        sets = self.feed.program_sets()
        decision = self.scheduler.update(sets, self.client.now, self.applier.supported)
        self.last = decision
        self.store.save_events(self.scheduler.records, decision.responses)
        posted = await self.post_responses()  # the head-end hears on time, DER or not
        applied = await self._apply(decision)
        posted = posted and await self.post_responses()
        self.prune()
        await self._read()
        if self.reporter is not None:
            await self.reporter.round()
        waits = [MAX_SLEEP, self.feed.next_due()]
        if self.reporter is not None:
            waits.append(self.reporter.due())
        if decision.next_change is not None:
            waits.append(decision.next_change)
        if not applied or not posted:
            waits.append(RETRY_SECONDS)
        return max(0.0, min(waits))

    def prune(self) -> list[str]:
        """Forget, in memory and in the store, the events over for ``keep_seconds`` that the
        head-end no longer lists and whose Responses are all posted, and the steps sent
        before that bound (DESIGN D203); the events' mRIDs."""
        listed = {c.mrid for s in self.feed.program_sets() for c in s.controls}
        owed = {due.mrid for _, due in self.store.unposted()}
        dropped = self.scheduler.prune(self.client.now, self.keep_seconds, listed, owed)
        self.store.drop_events(dropped)
        self.store.drop_changes(time.time() - self.keep_seconds)
        self.pruned += len(dropped)
        return dropped

    def _supported_modes(self) -> set[str]:
        return {r.mode for r in RULES if self.applier.supported(r.mode)}

    def _enabled_modes(self) -> set[str]:
        """Modes whose function the DER reports enabled (or which need none and are held)."""
        enabled = {k for k, on in self.applier.enabled.items() if on}
        return {
            r.mode
            for r in RULES
            if self.applier.supported(r.mode) and (r.function is None or r.function in enabled)
        }

    async def _survey(self) -> bool:
        if self.surveyed:
            return True
        try:
            await self.applier.survey()
        except GridwireError as exc:
            self._der_failed(exc)
            return False
        self.surveyed = True
        return True

    async def _apply(self, decision: Decision) -> bool:
        curves = {h: c for s in self.feed.program_sets() for h, c in s.curves.items()}
        try:
            made = await self.applier.apply(self.applier.desired(decision.targets, curves))
        except GridwireError as exc:
            self._der_failed(exc)
            return False
        self.der_error = None
        for change in made:
            self.store.add_change(time.time(), _change_json(change))
        return all(c.accepted is not False for c in made)

    async def _read(self) -> None:
        """The DER's readings the configuration names (those its map has), now and then."""
        clock = self.client.timebase.clock
        if not self._reading_names or clock.monotonic() < self._readings_due:
            return
        self._readings_due = clock.monotonic() + self._readings_seconds
        names = [n for n in self._reading_names if self.applier.has_point(n)]
        if not names:
            return
        try:
            read = await self.der.read(names)
        except GridwireError as exc:
            self._der_failed(exc)
            return
        self.readings = {
            "at": clock.wall(),
            "points": [
                {
                    "name": p.name,
                    "address": p.address,
                    "value": p.value,
                    "units": p.units,
                    "quality": p.quality,
                }
                for p in read.points
            ],
        }

    def _der_failed(self, exc: Exception) -> None:
        if str(exc) != self.der_error:
            log.warning("DER: %s; trying again in %g s", exc, RETRY_SECONDS)
        self.der_error = str(exc)

    async def post_responses(self) -> bool:
        """Post every Response owed, oldest first; False when one could not be posted."""
        lfdi = self.client.identity.lfdi
        for response_id, due in self.store.unposted():
            body = response_body(lfdi, due.mrid, due.status, int(due.at))
            self.store.attempting(response_id, time.time())
            try:
                answer = await self.client.headend.send("POST", due.reply_to, body)
            except HeadEndError as exc:
                self.store.tried(response_id, None)
                log.warning("Response %s for %s not posted: %s", due.status, due.mrid, exc)
                return False
            if answer.status >= 500:
                self.store.tried(response_id, answer.status)
                return False
            self.store.posted(response_id, time.time(), answer.status)
            if answer.status >= 300:
                log.warning(
                    "Response %s for %s answered HTTP %s", due.status, due.mrid, answer.status
                )
        return True


def _change_json(change: Change) -> dict[str, Any]:
    return asdict(change)
