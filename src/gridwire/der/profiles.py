"""The profiles an outstation may be given, and the master's ProfileSource over them."""

from __future__ import annotations

from pathlib import Path

from gridwire.der.pointmap import PointMap
from gridwire.der.store import load_point_map
from gridwire.errors import UnknownName

PROFILES = ("ieee1815.2",)
"""Profile names an outstation may be given: the DNP3 profile for DER (IEEE 1815.2)."""


class ProfileLoader:
    """The master's ProfileSource: the point map of a profile name, loaded once (the map file
    given, else the installed tables, else the demo map)."""

    def __init__(self, tables: Path | None) -> None:
        self.tables = tables
        self._map: PointMap | None = None

    def __call__(self, profile: str) -> PointMap:
        if profile.strip().lower() not in PROFILES:
            raise UnknownName(f"unknown profile {profile!r} (profiles: {', '.join(PROFILES)})")
        if self._map is None:
            self._map = load_point_map(self.tables)
        return self._map
