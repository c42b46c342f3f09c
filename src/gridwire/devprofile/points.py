"""The points a Device Profile declares: the entries of its first ``dataPointsList``, by
element name (any edition, any vendor).

Entries are ``binaryInput`` (type ``bi``), ``doubleBitInput`` (``dbi``), ``binaryOutput``
(``bo``), ``counter`` (``counter``, and ``frozen`` when its ``frozenCounterExists`` says
true), ``analogInput`` (``ai``) and ``analogOutput`` (``ao``), found at any depth below the
list. Of each: the index, the name, the event class (``changeEventClass``; for a counter
``counterEventClass``, for its frozen counter ``frozenCounterEventClass``), whether it is in
a class 0 response as declared (``includedInClass0Response``; ``countersIncludedInClass0``,
``frozenCountersIncludedInClass0``) and the deadband, where the entry states one (a
``deadband`` element anywhere in it, as transmitted).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Final

from gridwire.devprofile.codes import CLASS_WORDS
from gridwire.devprofile.errors import RefusedDocument
from gridwire.devprofile.layout import text_of

ENTRY_TYPES: Final[dict[str, str]] = {
    "binaryInput": "bi",
    "doubleBitInput": "dbi",
    "binaryOutput": "bo",
    "counter": "counter",
    "analogInput": "ai",
    "analogOutput": "ao",
}
TYPE_ORDER: Final[tuple[str, ...]] = ("bi", "dbi", "bo", "counter", "frozen", "ai", "ao")
MAX_INDEX: Final = 0xFFFF
"""The highest index a read request of the master can name."""


@dataclass(frozen=True, slots=True)
class DeclaredPoint:
    """One point as the document declares it. ``event_class`` is 0-3 (None when the entry
    does not say, or says something else); ``class_0`` is the declaration as written
    (``always``, ``never``...; None when absent)."""

    type: str
    index: int
    name: str | None
    event_class: int | None
    class_0: str | None
    deadband: float | None

    @property
    def key(self) -> tuple[str, int]:
        return (self.type, self.index)


def _child_text(entry: ET.Element, name: str) -> str | None:
    child = entry.find(name)
    if child is None:
        return None
    if len(child) > 0:  # a choice: <changeEventClass><one/></changeEventClass>
        return child[0].tag
    return text_of(child) or None


def _event_class(entry: ET.Element, name: str) -> int | None:
    text = _child_text(entry, name)
    return None if text is None else CLASS_WORDS.get(text.casefold())


def _deadband(entry: ET.Element) -> float | None:
    for element in entry.iter():
        if element.tag.casefold().endswith("deadband") and len(element) == 0:
            try:
                value = float(text_of(element))
            except ValueError:
                continue
            if math.isfinite(value):
                return value
    return None


def _index(entry: ET.Element, number: int) -> int:
    text = _child_text(entry, "index")
    where = f"data point {number} ({entry.tag})"
    if text is None:
        raise RefusedDocument(f"Device Profile document: {where} states no index")
    try:
        index = int(text)
    except ValueError:
        raise RefusedDocument(
            f"Device Profile document: {where} has index {text[:40]!r}, not a whole number"
        ) from None
    if not 0 <= index <= MAX_INDEX:
        raise RefusedDocument(
            f"Device Profile document: {where} has index {index}, outside 0-{MAX_INDEX}"
        )
    return index


def declared_points(root: ET.Element) -> list[DeclaredPoint]:
    """Every point the first ``dataPointsList`` declares, by type (the order of the DNP3
    groups) then index; the first declaration of a type and index counts. RequestError for
    an entry whose index is missing, not a whole number or beyond what a read can name."""
    points = next(root.iter("dataPointsList"), None)
    if points is None:
        return []
    found: dict[tuple[str, int], DeclaredPoint] = {}
    number = 0
    for entry in points.iter():
        type = ENTRY_TYPES.get(entry.tag)
        if type is None or entry.find("index") is None:
            continue
        number += 1
        index = _index(entry, number)
        name = _child_text(entry, "name")
        if type == "counter":
            counter = DeclaredPoint(
                "counter",
                index,
                name,
                _event_class(entry, "counterEventClass"),
                _child_text(entry, "countersIncludedInClass0"),
                _deadband(entry),
            )
            found.setdefault(counter.key, counter)
            exists = (_child_text(entry, "frozenCounterExists") or "").casefold()
            if exists in ("true", "1", "yes"):
                frozen = DeclaredPoint(
                    "frozen",
                    index,
                    name,
                    _event_class(entry, "frozenCounterEventClass"),
                    _child_text(entry, "frozenCountersIncludedInClass0"),
                    None,
                )
                found.setdefault(frozen.key, frozen)
            continue
        point = DeclaredPoint(
            type,
            index,
            name,
            _event_class(entry, "changeEventClass"),
            _child_text(entry, "includedInClass0Response"),
            _deadband(entry),
        )
        found.setdefault(point.key, point)
    order = {t: i for i, t in enumerate(TYPE_ORDER)}
    return sorted(found.values(), key=lambda p: (order[p.type], p.index))
