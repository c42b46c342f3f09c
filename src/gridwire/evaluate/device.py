"""The report's header: which device was evaluated, with what, and how it ended.

:func:`describe_device` gathers, once the checks have run and while the master is still
open: where the outstation is (host, port, link addresses, TLS); the nameplate of its profile
(every point the tables put under a "Nameplate" purpose, by the tables' name, in engineering
units, as the survey read it); the device attributes it gives (group 0, :mod:`~gridwire.
master.attributes`; none when it refuses or is no longer connected); the tables' title and a
SHA-256 (of the file the profile was read from, else of the profile's points as JSON); the
Device Profile document's name and SHA-256; the run's parameters.

:func:`overall_verdict` is the one badge: ``fail`` when a check failed or something was left
changed, else ``incomplete`` when the run was (``Summary.incomplete``), else ``pass``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import orjson

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind
from gridwire.der.records import profile_of
from gridwire.der.text import normalize
from gridwire.errors import GridwireError
from gridwire.evaluate.survey import Survey, key_of
from gridwire.master import Master
from gridwire.master.attributes import DeviceAttribute, read_attributes

log = logging.getLogger("gridwire.evaluate")

Overall = Literal["pass", "fail", "incomplete"]
NAMEPLATE = "nameplate"


@dataclass(slots=True)
class NameplateValue:
    """One nameplate point: ``point`` (AI4...), ``name`` as the tables give it, ``value`` in
    engineering units (null when the outstation did not serve it), ``units``."""

    point: str
    name: str
    value: float | bool | None
    units: str | None = None


@dataclass(slots=True)
class DeviceUnderTest:
    """The report's ``device``: see the module's notes. ``capture`` is the name of the
    capture file written with the report (null when none was)."""

    outstation: str
    host: str
    port: int
    outstation_address: int
    master_address: int
    tls: bool
    tables: str
    tables_source: str | None
    tables_sha256: str
    demo: bool = False
    device_profile: str | None = None
    device_profile_sha256: str | None = None
    capture: str | None = None
    attributes: list[DeviceAttribute] = field(default_factory=list)
    nameplate: list[NameplateValue] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)

    def attribute(self, key: str) -> str | None:
        """The text of the attribute of set 0 with that key, if the outstation gave it."""
        for found in self.attributes:
            if found.set == 0 and found.key == key:
                return found.text
        return None


def _sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _tables(point_map: PointMap, profile: str | None) -> tuple[str | None, str]:
    """Where the tables came from and their SHA-256 (the file's, else the points' JSON)."""
    if profile:
        path = Path(profile)
        digest = _sha256_of(path) if path.is_file() else None
        if digest is not None:
            return path.name, digest
    points = orjson.dumps(dataclasses.asdict(profile_of(point_map)), option=orjson.OPT_SORT_KEYS)
    return profile or point_map.source, hashlib.sha256(points).hexdigest()


def nameplate(point_map: PointMap, surveyed: Survey | None) -> list[NameplateValue]:
    """The nameplate points of the profile, valued as the survey read them."""
    found: list[NameplateValue] = []
    for point in point_map.points:
        if NAMEPLATE not in normalize(point.purpose or ""):
            continue
        obj = surveyed.objects.get(key_of(point)) if surveyed is not None else None
        raw = obj.value if obj is not None else None
        value: float | bool | None
        if isinstance(raw, bool):
            value = raw
        elif isinstance(raw, int | float) and point.kind is not Kind.BI:
            value = point.to_engineering(raw)
        else:
            value = None
        found.append(NameplateValue(str(point), point.name, value, point.units))
    return found


async def _attributes(master: Master, outstation: str) -> list[DeviceAttribute]:
    if not master.connected(outstation):
        return []
    try:
        found = (await read_attributes(master, outstation)).attributes
    except GridwireError as exc:  # an answer that never came is no attribute, not a failure
        log.info("device attributes of %s not read: %s", outstation, exc)
        return []
    # the standard's identity first: vendor (252), product (250), serial (248)...
    return sorted(found, key=lambda a: (a.set, -a.variation))


async def describe_device(
    master: Master,
    outstation: str,
    point_map: PointMap,
    surveyed: Survey | None,
    *,
    device_profile: Path | None = None,
    parameters: dict[str, Any] | None = None,
) -> DeviceUnderTest:
    """The report's ``device`` (see the module's notes)."""
    settings = master.settings(outstation)
    source, digest = _tables(point_map, settings.profile)
    return DeviceUnderTest(
        outstation=outstation,
        host=settings.host,
        port=settings.port,
        outstation_address=settings.outstation_address,
        master_address=settings.master_address,
        tls=settings.tls is not None,
        tables=point_map.title,
        tables_source=source,
        tables_sha256=digest,
        demo=point_map.demo,
        device_profile=device_profile.name if device_profile is not None else None,
        device_profile_sha256=_sha256_of(device_profile) if device_profile is not None else None,
        attributes=await _attributes(master, outstation),
        nameplate=nameplate(point_map, surveyed),
        parameters=dict(parameters or {}),
    )


def run_parameters(options: Any, allow_control: bool, curves: int | None) -> dict[str, Any]:
    """The parameters a run was made with, as the report's header lists them."""
    return {
        "checks": list(options.checks) if options.checks else "all",
        "allow_control": allow_control,
        "allow_deviations": bool(options.allow_deviations),
        "settle": float(options.settle),
        "curves": curves,
    }


def seconds_between(started: str, ended: str) -> float:
    """Seconds from one ISO 8601 UTC time to another (0 when either cannot be read)."""
    try:
        begin = datetime.fromisoformat(started.replace("Z", "+00:00"))
        end = datetime.fromisoformat(ended.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return max(0.0, (end - begin).total_seconds())


def overall_verdict(failed: int, incomplete: bool, left_changed: bool) -> Overall:
    """The one badge (see the module's notes)."""
    if failed or left_changed:
        return "fail"
    return "incomplete" if incomplete else "pass"
