"""Reporting the DER back, with I/O: finds this EndDevice's DER (its DERListLink, the first
DER's DERCapability, DERSettings, DERStatus and DERAvailability links) and DeviceCapability's
MirrorUsagePointList; reads the DER points :mod:`.report` names, PUTs the four DER resources
and POSTs the site's MirrorMeterReadings to the MirrorUsagePoint it POSTed once (its Location
kept in the store, so a restart does not make another). A failure is logged once and tried
again at the next round; reporting never holds up scheduling.

Two cadences, each at the postRate the server gives (DESIGN D202): the DER resources at the
EndDevice's ``postRate`` (IEEE 2030.5: how often the EndDevice and the resources under it are
posted; a server may add or change it), read from the EndDevice at each round; the
MirrorMeterReadings at the MirrorUsagePoint's ``postRate``, read from the MirrorUsagePoint
(GET of its Location) at each round. Where the server gives none (absent, 0, or the resource
cannot be read) the configured ``post_seconds`` applies; never more often than
:data:`MIN_POST_SECONDS`. A changed rate takes effect from the round that read it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from gridwire.derops.der_master import Der
from gridwire.errors import GridwireError
from gridwire.gateway.report import (
    der_availability,
    der_capability,
    der_settings,
    der_status,
    meter_readings,
    mirror_usage_point,
    report_names,
)
from gridwire.gateway.store import Store
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.errors import HeadEndError, HttpStatusError, ResourceError
from gridwire.sep2.links import resolve
from gridwire.sep2.parsing import UINT32, root_reader

log = logging.getLogger("gridwire.gateway.report")

MIN_POST_SECONDS = 1.0
DER_LINKS = ("DERCapabilityLink", "DERSettingsLink", "DERStatusLink", "DERAvailabilityLink")


class Reporter:
    def __init__(
        self,
        client: Sep2Client,
        der: Der,
        store: Store,
        *,
        supported: Callable[[], set[str]],
        enabled: Callable[[], set[str]],
        post_seconds: float = 300.0,
        der_type: int = 1,
    ) -> None:
        self.client = client
        self.der = der
        self.store = store
        self.supported = supported
        self.enabled = enabled
        self.post_seconds = post_seconds
        self.der_type = der_type
        self.links: dict[str, str] = {}
        self.mup_list: str | None = None
        self.sent: dict[str, int] = {}  # what was sent, by kind: its last HTTP status
        self.last_error: str | None = None
        self.der_rate: int | None = None  # the EndDevice's postRate, as last read
        self.mirror_rate: int | None = None  # the MirrorUsagePoint's postRate, as last read
        self._der_due = 0.0
        self._mirror_due = 0.0
        self._mup_error: str | None = None

    def interval(self, rate: int | None) -> float:
        """Seconds between rounds for a server's postRate (None or 0: the configured)."""
        return max(MIN_POST_SECONDS, float(rate) if rate else self.post_seconds)

    def due(self) -> float:
        return max(0.0, min(self._der_due, self._mirror_due) - time.monotonic())

    async def round(self) -> None:
        """The rounds of reports that are due: the DER resources, the readings, or both."""
        now = time.monotonic()
        der_due, mirror_due = now >= self._der_due, now >= self._mirror_due
        if not (der_due or mirror_due) or self.client.poller.structure is None:
            return
        # Due again at the configured interval unless a round reads the server's rate; a
        # failed round is so tried again then.
        if der_due:
            self._der_due = now + self.interval(self.der_rate)
        if mirror_due:
            self._mirror_due = now + self.interval(self.mirror_rate)
        try:
            await self._find(der_due)
            readings = await self._read()
            if der_due:
                await self._put_der(readings)
            if mirror_due:
                await self._mirror(readings)
        except (HeadEndError, ResourceError, GridwireError) as exc:
            if str(exc) != self.last_error:
                log.warning("reporting: %s", exc)
            self.last_error = str(exc)
            return
        self.last_error = None

    async def _find(self, der_round: bool) -> None:
        """The links (once found, kept); the EndDevice's postRate at each DER round."""
        structure = self.client.poller.structure
        if structure is None or structure.end_device is None:
            return
        if self.links and not der_round:
            return
        edev = await self.client.headend.get(structure.end_device.href)
        reader = root_reader(edev.require_ok(), "EndDevice", edev.url)
        self._der_rate(reader.optional_integer("postRate", UINT32))
        if self.links:
            return
        dcap = await self.client.headend.get(self.client.poller.settings.dcap_path)
        mup = root_reader(dcap.require_ok(), "DeviceCapability", dcap.url).link(
            "MirrorUsagePointListLink"
        )
        self.mup_list = mup.href if mup else None
        der_list = reader.link("DERListLink")
        if der_list is None:
            return
        listed = await self.client.headend.get(der_list.href)
        reader = root_reader(listed.require_ok(), "DERList", listed.url)
        first = reader.child("DER")
        if first is None:
            return
        for name in DER_LINKS:
            found = first.find(f"{reader.ns}{name}")
            href = None if found is None else found.get("href")
            if href:
                self.links[name] = resolve(listed.url, href)

    def _der_rate(self, rate: int | None) -> None:
        if rate != self.der_rate:
            log.info(
                "DER resources posted every %g s (EndDevice postRate %s)", self.interval(rate), rate
            )
            self._der_due = time.monotonic() + self.interval(rate)
        self.der_rate = rate

    async def _mirror_rate(self, mup: str) -> None:
        """The MirrorUsagePoint's postRate (None where it gives none or cannot be read)."""
        rate: int | None = None
        try:
            fetched = await self.client.headend.get(mup)
            if not fetched.empty:
                reader = root_reader(fetched.require_ok(), "MirrorUsagePoint", fetched.url)
                rate = reader.optional_integer("postRate", UINT32)
        except (ResourceError, HttpStatusError) as exc:
            if str(exc) != self._mup_error:  # once per distinct failure, not every round
                log.info("MirrorUsagePoint %s: %s; posting every %g s", mup, exc, self.post_seconds)
            self._mup_error = str(exc)
        else:
            self._mup_error = None
        if rate != self.mirror_rate:
            log.info(
                "readings posted every %g s (MirrorUsagePoint postRate %s)",
                self.interval(rate),
                rate,
            )
            self._mirror_due = time.monotonic() + self.interval(rate)
        self.mirror_rate = rate

    async def _read(self) -> dict[str, object]:
        point_map = self.der.point_map
        names = []
        for name in report_names():
            try:
                point_map.resolve(name)
            except GridwireError:
                continue
            names.append(name)
        read = await self.der.read(names)
        by_name = {p.name: p.value for p in read.points}
        return {name: by_name.get(point_map.resolve(name).name) for name in names}

    async def _send(self, kind: str, method: str, href: str, body: bytes) -> str | None:
        answer = await self.client.headend.send(method, href, body)
        self.sent[kind] = answer.status
        if answer.status >= 300:
            raise GridwireError(f"{method} {kind} to {href} answered HTTP {answer.status}")
        return answer.location

    async def _put_der(self, readings: dict[str, object]) -> None:
        now = int(self.client.now())
        grad = readings.get("Charge/Discharge discharging up ramp rate")
        bodies = {
            "DERCapabilityLink": der_capability(readings, self.supported(), self.der_type),
            "DERSettingsLink": der_settings(
                readings, self.enabled(), float(grad) if isinstance(grad, float) else 0.0, now
            ),
            "DERStatusLink": der_status(readings, now),
            "DERAvailabilityLink": der_availability(readings, now),
        }
        for name, body in bodies.items():
            if name in self.links:
                await self._send(name.removesuffix("Link"), "PUT", self.links[name], body)

    async def _mirror(self, readings: dict[str, object]) -> None:
        if self.mup_list is None:
            return
        lfdi = self.client.identity.lfdi
        mup = self.store.get("mup")
        if mup is None:
            location = await self._send(
                "MirrorUsagePoint", "POST", self.mup_list, mirror_usage_point(lfdi)
            )
            if location is None:
                raise GridwireError("the MirrorUsagePoint POST gave no Location")
            mup = location
            self.store.put("mup", mup)
        await self._mirror_rate(mup)
        now = int(self.client.now())
        body = meter_readings(lfdi, readings, now, int(self.interval(self.mirror_rate)))
        await self._send("MirrorMeterReading", "POST", mup, body)
