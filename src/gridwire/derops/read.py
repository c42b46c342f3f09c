"""der.read: points of a DER by name, address or group, read in one request.

``names`` (a list of names or addresses) and/or ``group`` (a function by its key, name,
purpose or enable output, or every point of one purpose) choose the points; a point named
twice is read and listed once, where it first appears (the names in the order given, then the
group's points in the tables' order). They are read by :func:`gridwire.derops.ranges.read_ranges`:
one READ of the fewest ranges, range by range when the outstation refuses it whole. Each
point comes back as a :class:`~gridwire.derops.readings.DerReading`; a disabled function's
inputs come back ``offline`` (the outstation sends them without ONLINE).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Point
from gridwire.derops.profile import named_points, unique
from gridwire.derops.ranges import PointReader, read_ranges
from gridwire.derops.readings import DerReading, readings
from gridwire.errors import BadParameter
from gridwire.master.records import Exchange


@dataclass(slots=True)
class DerReadResult:
    """The points read, in the order chosen, and every request made."""

    points: list[DerReading]
    exchanges: list[Exchange]


def read_targets(
    point_map: PointMap, names: Sequence[str] | None = None, group: str | None = None
) -> list[Point]:
    """The points ``names`` and ``group`` choose, each once; RequestError for a name or group
    that means nothing (or several points), or when neither is given."""
    if isinstance(names, str):
        raise BadParameter("names is a list of names or addresses, not one string")
    if names is None and group is None:
        raise BadParameter("der.read needs names (a list), group, or both")
    chosen = named_points(point_map, names or ())
    if group is not None:
        chosen.extend(point_map.group(group))
    if not chosen:
        raise BadParameter("der.read: names is empty and no group is given")
    return unique(chosen)


async def read_points(
    reader: PointReader, outstation: str, points: Sequence[Point]
) -> tuple[list[DerReading], list[Exchange]]:
    """The readings of ``points`` (in their order) and the exchanges that read them."""
    ranged = await read_ranges(reader, outstation, [(p.kind.type_name, p.index) for p in points])
    return readings(points, ranged.objects), ranged.exchanges


async def der_read(
    reader: PointReader,
    outstation: str,
    point_map: PointMap,
    names: Sequence[str] | None = None,
    group: str | None = None,
) -> DerReadResult:
    """der.read (see the module's notes)."""
    points = read_targets(point_map, names, group)
    found, exchanges = await read_points(reader, outstation, points)
    return DerReadResult(found, exchanges)
