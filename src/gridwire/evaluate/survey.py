"""The survey an evaluation begins with: which of the profile's points the outstation serves.

With every deviation off: a class 0 read, an output status read, then every point of the
profile neither returned, by :func:`gridwire.derops.ranges.read_ranges` (the fewest ranges in
one READ, range by range when the outstation refuses it whole). A point is served when some
read returned it. The run cannot start (ConnectionFailed, an error of kind ``connection``)
when the outstation is not connected, does not answer the class 0 read (a response that began
and did not end is an answer: what arrived is used), or the connection is lost during the
survey.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind, Point
from gridwire.derops.ranges import IndexRange, read_ranges
from gridwire.derops.readings import latest
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import ConnectionFailed
from gridwire.master import Master
from gridwire.master.records import Exchange

Key = tuple[str, int]


@dataclass(slots=True)
class Survey:
    """What the survey found: the points served (by API type and index) with the object that
    reported each, the ranges refused even alone, and every exchange."""

    objects: dict[Key, DnpObject] = field(default_factory=dict)
    refused: list[IndexRange] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)

    def serves(self, point: Point | Key) -> bool:
        """Whether the outstation served ``point`` (a profile point, or (type, index))."""
        key = point if isinstance(point, tuple) else key_of(point)
        return key in self.objects

    @property
    def served(self) -> frozenset[Key]:
        return frozenset(self.objects)


def key_of(point: Point) -> Key:
    return (point.kind.type_name, point.index)


def profile_keys(point_map: PointMap) -> list[Key]:
    """Every point of the profile by API type and index (a counter's frozen counterpart too)."""
    keys = [key_of(p) for p in point_map.points]
    keys.extend(("frozen", p.index) for p in point_map.by_kind(Kind.CTR) if p.frozen)
    return keys


def _answered(exchange: Exchange, master: Master, outstation: str, what: str) -> None:
    """ConnectionFailed when nothing came back. A response that began and did not end (a
    master that does not confirm, say, and an outstation waiting for it between fragments)
    is an answer: what arrived is used."""
    if exchange.outcome == "complete" or exchange.fragments > 0:
        return
    if exchange.outcome == "abandoned" or not master.connected(outstation):
        raise ConnectionFailed(f"the connection to {outstation} was lost during the {what}")
    raise ConnectionFailed(f"{outstation} did not answer the {what} ({exchange.outcome})")


async def survey(master: Master, outstation: str, point_map: PointMap) -> Survey:
    """Survey ``outstation`` (see the module's notes)."""
    if not master.connected(outstation):
        raise ConnectionFailed(f"outstation {outstation} is not connected")
    found = Survey()
    class0 = await master.scan(outstation, "class0")
    _answered(class0, master, outstation, "first read (class 0)")
    outputs = await master.scan(outstation, "outputs")
    _answered(outputs, master, outstation, "output status read")
    found.exchanges += [class0, outputs]
    objects = latest([*class0.objects, *outputs.objects])
    missing = [key for key in profile_keys(point_map) if key not in objects]
    if missing:
        ranged = await read_ranges(master, outstation, missing)
        found.exchanges += ranged.exchanges
        for exchange in ranged.exchanges:
            if exchange.outcome == "abandoned" or not master.connected(outstation):
                raise ConnectionFailed(
                    f"the connection to {outstation} was lost during the survey's range reads"
                )
        found.refused = ranged.refused
        objects.update(
            (key, obj) for key, obj in latest(ranged.objects).items() if key not in objects
        )
    found.objects = {key: obj for key, obj in objects.items() if not obj.event}
    return found
