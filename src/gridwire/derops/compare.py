"""der.compare: what an outstation serves against the points its Device Profile declares.

The procedure only reads, and needs no point map:

1. a class 0 read (every static point the outstation puts in class 0);
2. an output status read (g10 and g40, all points);
3. every declared point neither returned, by :func:`gridwire.derops.ranges.read_ranges`:
   the fewest ranges in one READ, read again range by range when the outstation refuses it
   whole.

Declared points come from the document's first ``dataPointsList``
(:func:`gridwire.devprofile.declared_points`). The result says which declared points were not
returned (``absent``), which returned points are not declared (``undeclared``, named from the
outstation's point map when it has one), which served points a class 0 read carried or left
out against what the document declares (``class_0``, with ``carried``), and lists each point
declared and served with its event class, class 0 inclusion and deadband as declared (those
cannot be asked of an outstation) beside the value it served.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from gridwire.derops.documents import Document, document_source, read_source_off_loop
from gridwire.derops.ranges import POINT_TYPES, PointReader, read_ranges
from gridwire.devprofile.points import DeclaredPoint, declared_points
from gridwire.dnp3.objects.records import DnpObject, Value
from gridwire.master import Master
from gridwire.master.records import Exchange

NameOf = Callable[[str, int], str | None]
"""The outstation's point map naming a point by API type and index (None: it names none)."""

_ORDER = {t: i for i, t in enumerate(POINT_TYPES)}


class CompareReader(PointReader, Protocol):
    """What der.compare needs of the master (:class:`gridwire.master.Master` fits)."""

    async def scan(self, outstation: str, kind: str) -> Exchange: ...


@dataclass(slots=True)
class PointRef:
    """A point by API type and index, with its name (as declared for an absent point; from
    the outstation's point map, or null, for an undeclared one)."""

    type: str
    index: int
    name: str | None


@dataclass(slots=True)
class Class0Difference:
    """A served point whose presence in the class 0 response is not what the document
    declares: ``declared`` as written (``always``, ``never``), ``carried`` as seen."""

    type: str
    index: int
    name: str | None
    declared: str
    carried: bool


@dataclass(frozen=True, slots=True)
class ComparedPoint(DeclaredPoint):
    """A point declared and served: its name, event class (0-3, null when the document does
    not say), class 0 inclusion and deadband as declared; value and flags as served."""

    value: Value
    flags: list[str] | None


@dataclass(slots=True)
class CompareResult:
    """der.compare: how many points are declared and served, and how they differ."""

    declared: int
    served: int
    absent: list[PointRef]
    undeclared: list[PointRef]
    class_0: list[Class0Difference]
    points: list[ComparedPoint]
    exchanges: list[Exchange]


def _static(objects: Iterable[DnpObject]) -> dict[tuple[str, int], DnpObject]:
    """Point values (not events) by type and index; the last one received wins."""
    found: dict[tuple[str, int], DnpObject] = {}
    for obj in objects:
        if obj.type in _ORDER and not obj.event and obj.index is not None:
            found[(obj.type, obj.index)] = obj
    return found


def _sort_key(key: tuple[str, int]) -> tuple[int, int]:
    return (_ORDER[key[0]], key[1])


def _class_0(point: DeclaredPoint, carried: bool) -> Class0Difference | None:
    declared = (point.class_0 or "").strip()
    expected = {"always": True, "never": False}.get(declared.casefold())
    if expected is None or expected == carried:
        return None
    return Class0Difference(point.type, point.index, point.name, declared, carried)


async def compare_points(
    reader: CompareReader,
    outstation: str,
    declared: list[DeclaredPoint],
    name_of: NameOf | None = None,
) -> CompareResult:
    """Compare what ``outstation`` serves with ``declared`` (see the module's notes). Raises
    what the reader raises (ConnectionFailed when not connected)."""
    class0 = await reader.scan(outstation, "class0")
    outputs = await reader.scan(outstation, "outputs")
    exchanges = [class0, outputs]
    carried = set(_static(class0.objects))
    served = _static(class0.objects)
    served.update(_static(outputs.objects))
    missing = [p.key for p in declared if p.key not in served]
    if missing:
        ranged = await read_ranges(reader, outstation, missing)
        exchanges.extend(ranged.exchanges)
        served.update(_static(ranged.objects))
    by_key = {p.key: p for p in declared}
    absent = [PointRef(p.type, p.index, p.name) for p in declared if p.key not in served]
    undeclared = [
        PointRef(t, i, name_of(t, i) if name_of is not None else None)
        for t, i in sorted(set(served) - set(by_key), key=_sort_key)
    ]
    differences: list[Class0Difference] = []
    points: list[ComparedPoint] = []
    for point in declared:
        obj = served.get(point.key)
        if obj is None:
            continue
        difference = _class_0(point, point.key in carried)
        if difference is not None:
            differences.append(difference)
        points.append(
            ComparedPoint(
                point.type,
                point.index,
                point.name,
                point.event_class,
                point.class_0,
                point.deadband,
                obj.value,
                obj.flags,
            )
        )
    return CompareResult(
        declared=len(declared),
        served=len(served),
        absent=absent,
        undeclared=undeclared,
        class_0=differences,
        points=points,
        exchanges=exchanges,
    )


async def der_compare(
    master: Master,
    outstation: str,
    document: Document | None = None,
    fallback: Path | None = None,
) -> CompareResult:
    """der.compare of ``outstation`` against ``document`` (text, octets or a file), else its
    own device_profile, else ``fallback`` (see :mod:`gridwire.derops.documents`); undeclared
    points are named from the outstation's point map when it has one."""
    source = document_source(master, outstation, document, fallback)
    root = await read_source_off_loop(source)
    profile = master.point_map(outstation)
    name_of = profile.name_of if profile is not None else None
    return await compare_points(master, outstation, declared_points(root), name_of)
