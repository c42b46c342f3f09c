"""Reading chosen points by index ranges, with the retry a refusing outstation needs.

The DER procedures (der.read, der.functions, der.curve, der.write's readback, der.compare)
read points the profile or a Device Profile names, not whole classes. They all read the same
way, through :func:`read_ranges`:

1. The points become the fewest ranges that name nothing else: one range per run of
   consecutive indexes of one point type (:func:`ranges_of`). Types go in the order of their
   DNP3 groups (bi, dbi, bo, counter, frozen, ai, ao), indexes ascending; duplicates are
   dropped.
2. One READ carries every range, one range header (variation 0, the outstation's own
   variation) each. Past :data:`RANGES_PER_READ` ranges the read is split, so that no request
   outgrows the 2048-octet fragment most outstations take (a range header is at most 7
   octets).
3. An outstation refuses a whole read when one header names something it does not serve:
   IIN2 PARAMETER_ERROR (a range holding an index it has no point at) or OBJECT_UNKNOWN (a
   group or variation it does not know), with no objects. When a refused read held several
   ranges, each of its ranges is read again alone, so one point the outstation lacks costs
   that range only. A range refused alone is listed in ``refused``; its points are simply
   not reported. A read that times out or ends otherwise is not retried here (the master's
   ``read_retries`` covers a read that timed out with nothing received).
4. Some outstations (opendnp3 among them) answer such a read in part instead: the points
   they have, with PARAMETER_ERROR. Those objects are kept; only the ranges of which nothing
   came back are read again alone (none when every range returned something), and a range
   that returned something is not listed in ``refused``.

Every request made is listed in ``exchanges``, in the order sent, the refused one included;
``objects`` holds every object received, in the order received.

    reading = await read_ranges(master, "der", [("ai", 328), ("ai", 329), ("bi", 107)])
    reading.ranges    # [IndexRange("bi", 107, 107), IndexRange("ai", 328, 329)]
    reading.objects   # what came back, each a DnpObject
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Protocol

from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import Exchange

POINT_TYPES: Final = ("bi", "dbi", "bo", "counter", "frozen", "ai", "ao")
"""Point types a range may name (the API's ``type`` of their objects), in group order."""

REFUSING: Final = frozenset({"PARAMETER_ERROR", "OBJECT_UNKNOWN"})
"""Indications by which an outstation refuses a read whole because of what a header names."""

RANGES_PER_READ: Final = 256
"""Most range headers one READ carries (256 x 7 octets fits a 2048-octet fragment)."""


@dataclass(frozen=True, slots=True)
class IndexRange:
    """Indexes ``start`` to ``stop`` (both included) of one point type (bi, bo, ai...)."""

    type: str
    start: int
    stop: int

    def __str__(self) -> str:
        span = str(self.start) if self.start == self.stop else f"{self.start}-{self.stop}"
        return f"{self.type} {span}"

    def __contains__(self, point: object) -> bool:
        """Whether ``(type, index)`` lies in the range."""
        if not isinstance(point, tuple) or len(point) != 2:
            return False
        return bool(point[0] == self.type and self.start <= point[1] <= self.stop)

    @property
    def text(self) -> str:
        """The range as ``Master.read`` takes it: ``"328-332"``."""
        return f"{self.start}-{self.stop}"


class PointReader(Protocol):
    """What reading by ranges needs of the master (:class:`gridwire.master.Master` fits)."""

    async def read(self, outstation: str, points: dict[str, list[int | str]]) -> Exchange: ...


@dataclass(slots=True)
class RangedRead:
    """What :func:`read_ranges` did: the ranges, every exchange, the objects received, the
    ranges refused even alone, and whether the per-range retry ran."""

    ranges: list[IndexRange]
    exchanges: list[Exchange] = field(default_factory=list)
    objects: list[DnpObject] = field(default_factory=list)
    refused: list[IndexRange] = field(default_factory=list)
    retried: bool = False


def ranges_of(points: Iterable[tuple[str, int]]) -> list[IndexRange]:
    """The fewest ranges naming exactly ``points`` (pairs of point type and index)."""
    by_type: dict[str, set[int]] = {}
    for point_type, index in points:
        if point_type not in POINT_TYPES:
            raise ValueError(f"{point_type!r} is not a point type ({', '.join(POINT_TYPES)})")
        by_type.setdefault(point_type, set()).add(index)
    ranges: list[IndexRange] = []
    for point_type in POINT_TYPES:
        start = stop = None
        for index in sorted(by_type.get(point_type, ())):
            if stop is not None and index == stop + 1:
                stop = index
                continue
            if start is not None and stop is not None:
                ranges.append(IndexRange(point_type, start, stop))
            start = stop = index
        if start is not None and stop is not None:
            ranges.append(IndexRange(point_type, start, stop))
    return ranges


def refused(exchange: Exchange) -> bool:
    """Whether the outstation refused the read whole for what one of its headers names."""
    return exchange.outcome == "complete" and not REFUSING.isdisjoint(exchange.indications)


def request_of(ranges: Iterable[IndexRange]) -> dict[str, list[int | str]]:
    """The ``points`` argument of ``Master.read`` that names these ranges, in their order."""
    points: dict[str, list[int | str]] = {}
    for item in ranges:
        points.setdefault(item.type, []).append(item.text)
    return points


async def read_ranges(
    reader: PointReader, outstation: str, points: Iterable[tuple[str, int]]
) -> RangedRead:
    """Read ``points`` (pairs of point type and index) of ``outstation``: one READ of the
    fewest ranges; a read refused whole that held several ranges is read again range by
    range. Raises what ``reader.read`` raises (ConnectionFailed when not connected)."""
    ranges = ranges_of(points)
    result = RangedRead(ranges)
    for first in range(0, len(ranges), RANGES_PER_READ):
        await _read(reader, outstation, ranges[first : first + RANGES_PER_READ], result)
    return result


async def _read(
    reader: PointReader, outstation: str, ranges: list[IndexRange], result: RangedRead
) -> None:
    exchange = await reader.read(outstation, request_of(ranges))
    result.exchanges.append(exchange)
    result.objects.extend(exchange.objects)
    if not refused(exchange):
        return
    silent = _unanswered(ranges, exchange.objects)
    if len(ranges) == 1:
        result.refused.extend(silent)
        return
    result.retried = bool(silent)
    for item in silent:
        alone = await reader.read(outstation, request_of([item]))
        result.exchanges.append(alone)
        result.objects.extend(alone.objects)
        if refused(alone) and not alone.objects:
            result.refused.append(item)


def _unanswered(ranges: list[IndexRange], objects: list[DnpObject]) -> list[IndexRange]:
    """The ranges none of ``objects`` lies in (all of them when there are no objects)."""
    if not objects:
        return list(ranges)
    indexes: dict[str, list[int]] = {}
    for obj in objects:
        if obj.type is not None and obj.index is not None:
            indexes.setdefault(obj.type, []).append(obj.index)
    for found in indexes.values():
        found.sort()
    silent = []
    for item in ranges:
        found = indexes.get(item.type, [])
        at = bisect_left(found, item.start)
        if at == len(found) or found[at] > item.stop:
            silent.append(item)
    return silent
