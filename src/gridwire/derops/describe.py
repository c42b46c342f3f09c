"""der.describe: a Device Profile document of what an outstation serves, observed rather than
declared.

The procedure only reads, and needs no point map:

1. a class 0 read and an output status read (g10 and g40, all points);
2. when the outstation has a point map, every point of it neither returned, by
   :func:`gridwire.derops.ranges.read_ranges` (the fewest ranges in one READ, range by range
   when refused whole), as the evaluation's survey reads;
3. its device attributes (READ g0v254, :func:`gridwire.master.attributes.read_attributes`);
4. a class 1, a class 2 and a class 3 read: a point that reports an event in one has that
   event class (a point that reported none has no event class stated).

A point is served when some read returned its static value; it is in class 0 when the class 0
read carried it. Its static variation is the one it was answered in, its event variation the
one its event came in. The implementation table lists, for each object the outstation
accepted in a request (a READ it answered without refusing: no NO_FUNC_CODE_SUPPORT,
OBJECT_UNKNOWN or PARAMETER_ERROR) the function and qualifier codes it was sent in, and each
object it answered with in a response (function code 129). The document is written by
:mod:`gridwire.devprofile.writer` (see :mod:`gridwire.derops.describe_document` for how each
value is marked observed), in a worker thread so the event loop keeps answering. Reading
class 1-3 takes the events the outstation held, as any event poll does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind
from gridwire.derops.describe_document import Observed, describe_document
from gridwire.derops.ranges import POINT_TYPES, read_ranges
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import ConnectionFailed
from gridwire.master import Master
from gridwire.master.attributes import read_attributes
from gridwire.master.records import Exchange

Key = tuple[str, int]
OTHER_TYPES = {110: "octet_string", 50: "time_and_interval"}
"""Indexed objects that are points without being one of the document's point types."""


@dataclass(slots=True)
class DescribedPoint:
    """A point as observed: ``class_0`` whether the class 0 read carried it, ``event_class``
    the class its event came in (null: it reported none), the variations it was answered
    in, and its name (from the outstation's point map, else its type and index)."""

    type: str
    index: int
    name: str
    class_0: bool
    static_variation: int
    event_class: int | None
    event_variation: int | None


@dataclass(slots=True)
class DescribeResult:
    """der.describe: the document (XML text), what it holds, and every exchange."""

    outstation: str
    document: str
    counts: dict[str, int]
    points: list[DescribedPoint]
    attributes: int
    function_codes: list[int]
    variations: list[str]
    exchanges: list[Exchange] = field(default_factory=list)


def _answered(master: Master, outstation: str, exchange: Exchange, what: str) -> None:
    if exchange.outcome == "complete" or exchange.fragments > 0:
        return
    if exchange.outcome == "abandoned" or not master.connected(outstation):
        raise ConnectionFailed(f"the connection to {outstation} was lost during the {what}")
    raise ConnectionFailed(f"{outstation} did not answer the {what} ({exchange.outcome})")


def _statics(objects: Iterable[DnpObject]) -> dict[Key, DnpObject]:
    found: dict[Key, DnpObject] = {}
    for obj in objects:
        if obj.event or obj.index is None:
            continue
        type = obj.type if obj.type in POINT_TYPES else OTHER_TYPES.get(obj.group)
        if type is not None:
            found.setdefault((type, obj.index), obj)
    return found


def _map_keys(point_map: object) -> list[Key]:
    if not isinstance(point_map, PointMap):
        return []
    keys = [(p.kind.type_name, p.index) for p in point_map.points]
    keys.extend(("frozen", p.index) for p in point_map.by_kind(Kind.CTR) if p.frozen)
    return keys


async def der_describe(master: Master, outstation: str) -> DescribeResult:
    """der.describe of ``outstation`` (see the module's notes). ConnectionFailed when it is
    not connected or does not answer the class 0 read."""
    if not master.connected(outstation):
        raise ConnectionFailed(f"outstation {outstation} is not connected")
    seen = Observed(outstation, master.settings(outstation))
    class0 = await master.scan(outstation, "class0")
    _answered(master, outstation, class0, "class 0 read")
    outputs = await master.scan(outstation, "outputs")
    _answered(master, outstation, outputs, "output status read")
    seen.exchanges += [class0, outputs]
    seen.carried = set(_statics(class0.objects))
    seen.served = _statics([*class0.objects, *outputs.objects])
    point_map = master.point_map(outstation)
    missing = [k for k in _map_keys(point_map) if k not in seen.served]
    if missing:
        ranged = await read_ranges(master, outstation, missing)
        seen.exchanges += ranged.exchanges
        for key, obj in _statics(ranged.objects).items():
            seen.served.setdefault(key, obj)
    attributes = await read_attributes(master, outstation)
    seen.attributes = attributes
    if attributes.exchange is not None:
        seen.exchanges.append(attributes.exchange)
    for number in (1, 2, 3):
        exchange = await master.scan(outstation, f"class{number}")
        _answered(master, outstation, exchange, f"class {number} read")
        seen.exchanges.append(exchange)
        seen.add_events(number, exchange.objects)
    if point_map is not None:
        seen.name_of = point_map.name_of
    document = await asyncio.to_thread(describe_document, seen)  # lxml: off the loop
    return DescribeResult(
        outstation=outstation,
        document=document.decode("utf-8"),
        counts=seen.counts(),
        points=[DescribedPoint(*p) for p in seen.points()],
        attributes=len(attributes.attributes),
        function_codes=seen.function_codes(),
        variations=[f"g{g}v{v}" for g, v in seen.variations()],
        exchanges=seen.exchanges,
    )
