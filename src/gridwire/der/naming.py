"""Naming points the way the operations API lets a caller (spec, "DER naming").

A point is named by its address (``AO12``, ``bi107``, any case) or by its name in the tables,
whole or its first sentence, ignoring case (and white space and the kind of dash). The label
(the name without the values an enumeration lists) counts as a whole name too. A read looks
among the inputs first and then the outputs; a write looks among the outputs only. Within the
kinds looked at, a whole name beats a first sentence; a name that still means two points is
refused with their addresses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gridwire.der.errors import UnknownPoint
from gridwire.der.points import Address, Kind, Point
from gridwire.der.text import first_sentence, normalize
from gridwire.errors import BadParameter

_INPUTS = frozenset(k for k in Kind if k.is_input)
_OUTPUTS = frozenset(k for k in Kind if k.is_output)


def addresses(points: Iterable[Point]) -> str:
    """``AI29, AI31``: the addresses of points, in listing order."""
    return ", ".join(str(p) for p in sorted(points, key=lambda p: p.address.sort_key))


RESOLVED_KEPT = 8192
"""Names resolved kept per map, each as given (so that the second resolution of a message, and
a name read again and again, is a dictionary lookup); names up to RESOLVED_LENGTH long."""
RESOLVED_LENGTH = 256


class NameIndex:
    """Every point of a map by the forms of its name."""

    __slots__ = ("_by_address", "_resolved", "_sentences", "_wholes")

    def __init__(self, points: Sequence[Point]) -> None:
        self._by_address = {p.address: p for p in points}
        self._resolved: dict[tuple[str, bool], Point] = {}
        self._wholes: dict[str, list[Point]] = {}
        self._sentences: dict[str, list[Point]] = {}
        for point in points:
            wholes = {normalize(point.name), normalize(point.label)}
            sentences = {
                normalize(first_sentence(point.name)),
                normalize(first_sentence(point.label)),
            }
            for key in wholes:
                self._wholes.setdefault(key, []).append(point)
            for key in sentences - wholes:
                self._sentences.setdefault(key, []).append(point)

    def resolve(self, text: str, *, write: bool = False) -> Point:
        """The one point ``text`` names; raises RequestError when it names none or several, or
        (for a write) names an input."""
        known = self._resolved.get((text, write))
        if known is not None:
            return known
        found = self._resolve(text, write)
        if len(self._resolved) < RESOLVED_KEPT and len(text) <= RESOLVED_LENGTH:
            self._resolved[(text, write)] = found
        return found

    def _resolve(self, text: str, write: bool) -> Point:
        if not text.strip():
            raise BadParameter("a point is named by its address or its name; the name is empty")
        address = Address.parse(text)
        if address is not None:
            return self._by_address_for(address, write)
        key = normalize(text)
        tiers = (_OUTPUTS,) if write else (_INPUTS, _OUTPUTS)
        for kinds in tiers:
            for table in (self._wholes, self._sentences):
                found = [p for p in table.get(key, ()) if p.kind in kinds]
                if len(found) == 1:
                    return found[0]
                if found:
                    raise BadParameter(f"'{text}' names more than one point: {addresses(found)}")
        if write:
            inputs = self.matches(text, _INPUTS)
            if inputs:
                raise BadParameter(
                    f"'{text}' names an input ({addresses(inputs)}); a write names outputs only"
                )
        raise UnknownPoint(f"no point of the profile is named '{text}'")

    def matches(self, text: str, kinds: frozenset[Kind]) -> list[Point]:
        """Points of ``kinds`` whose name, label or first sentence is ``text``."""
        key = normalize(text)
        found = self._wholes.get(key, []) + self._sentences.get(key, [])
        return [p for p in dict.fromkeys(found) if p.kind in kinds]

    def _by_address_for(self, address: Address, write: bool) -> Point:
        point = self._by_address.get(address)
        if point is None:
            raise UnknownPoint(f"{address} is not a point of the profile")
        if write and not address.kind.is_output:
            raise BadParameter(f"{address} is an input; a write names outputs only")
        return point
