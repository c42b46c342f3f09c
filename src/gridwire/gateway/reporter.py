"""Reporting the DER back, with I/O: finds this EndDevice's DER (its DERListLink, the first
DER's DERCapability, DERSettings, DERStatus and DERAvailability links) and DeviceCapability's
MirrorUsagePointList; every ``post_seconds`` (or the postRate the MirrorUsagePoint's answer
gives) reads the DER points :mod:`.report` names, PUTs the four DER resources and POSTs the
site's MirrorMeterReadings to the MirrorUsagePoint it POSTed once (its Location kept in the
store, so a restart does not make another). A failure is logged once and tried again at the
next round; reporting never holds up scheduling."""

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
from gridwire.sep2.errors import HeadEndError, ResourceError
from gridwire.sep2.links import resolve
from gridwire.sep2.parsing import root_reader

log = logging.getLogger("gridwire.gateway.report")

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
        self._due = 0.0

    def due(self) -> float:
        return max(0.0, self._due - time.monotonic())

    async def round(self) -> None:
        """One round of reports, when due."""
        if time.monotonic() < self._due or self.client.poller.structure is None:
            return
        self._due = time.monotonic() + self.post_seconds
        try:
            await self._find()
            readings = await self._read()
            await self._put_der(readings)
            await self._mirror(readings)
        except (HeadEndError, ResourceError, GridwireError) as exc:
            if str(exc) != self.last_error:
                log.warning("reporting: %s", exc)
            self.last_error = str(exc)
            return
        self.last_error = None

    async def _find(self) -> None:
        structure = self.client.poller.structure
        if self.links or structure is None or structure.end_device is None:
            return
        dcap = await self.client.headend.get(self.client.poller.settings.dcap_path)
        mup = root_reader(dcap.require_ok(), "DeviceCapability", dcap.url).link(
            "MirrorUsagePointListLink"
        )
        self.mup_list = mup.href if mup else None
        edev = await self.client.headend.get(structure.end_device.href)
        der_list = root_reader(edev.require_ok(), "EndDevice", edev.url).link("DERListLink")
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
        now = int(self.client.now())
        body = meter_readings(lfdi, readings, now, int(self.post_seconds))
        await self._send("MirrorMeterReading", "POST", mup, body)
