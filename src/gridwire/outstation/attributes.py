"""What a read of device attributes (g0) asks for, as the attributes a response carries.

IEEE 1815-2012 lays group 0 out as one object per attribute: the variation names the
attribute, the point index is the attribute set (0 for the standard's), the object is a data
type code, a length and the value. A read names the sets by qualifier (0x06 all of them, a
start-stop range, or indexes) and the attributes by variation:

- 254 (all attributes): every attribute of those sets, each its own header (g0 v<attribute>,
  start-stop set..set), in set then variation order;
- 255 (list of attribute variations): per set, a LIST of the variations it has (properties 0:
  none is writable here);
- any other variation: that attribute of each set that has it.

An outstation given no attributes does not serve group 0: OBJECT_UNKNOWN, as for any group it
does not have. So is a variation no set named has. A range or index naming no set there is:
PARAMETER_ERROR, as for a range with no point (:mod:`.reads`).
"""

from __future__ import annotations

from gridwire.dnp3.app.headers import ObjectHeader
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.objects.attributes import ALL_ATTRIBUTES, LIST_OF_VARIATIONS
from gridwire.dnp3.objects.records import Attribute, AttributeEntry
from gridwire.outstation.database import Database
from gridwire.outstation.refusal import Refused

Served = tuple[int, int, Attribute]
"""(attribute set, variation, attribute)."""

_ALL = 0x06
_RANGES = frozenset({0x00, 0x01, 0x02})
_INDEXED = frozenset({0x17, 0x28, 0x39})
_LIST_ROOM = 255  # octets of a LIST; longer is an EXTLIST (256-511)


def _sets(database: Database, header: ObjectHeader) -> list[int]:
    have = sorted({s for s, _ in database.attributes})
    qualifier, start, stop = header.qualifier, header.start, header.stop
    if qualifier == _ALL:
        return have
    if qualifier in _RANGES and start is not None and stop is not None:
        return [s for s in have if start <= s <= stop]
    if qualifier in _INDEXED and header.indices:
        return [s for s in have if s in set(header.indices)]
    raise Refused(IIN.PARAMETER_ERROR, f"g0 cannot be read with qualifier 0x{qualifier:02X}")


def _listing(database: Database, attribute_set: int) -> Attribute:
    entries = [
        AttributeEntry(variation, 0)
        for s, variation in sorted(database.attributes)
        if s == attribute_set
    ]
    kind = "LIST" if 2 * len(entries) <= _LIST_ROOM else "EXTLIST"
    return Attribute(kind, entries)


def plan_attributes(database: Database, header: ObjectHeader) -> list[Served]:
    """The attributes a g0 read header asks for; Refused when g0 or the variation is not
    served, or the qualifier names no sets."""
    variation = header.variation
    if not database.attributes:
        raise Refused(IIN.OBJECT_UNKNOWN, "g0 (device attributes) is not served")
    sets = _sets(database, header)
    if not sets:
        raise Refused(IIN.PARAMETER_ERROR, "the read names no attribute set there is")
    if variation == ALL_ATTRIBUTES:
        return [
            (s, v, database.attributes[(s, v)]) for s, v in sorted(database.attributes) if s in sets
        ]
    if variation == LIST_OF_VARIATIONS:
        return [(s, LIST_OF_VARIATIONS, _listing(database, s)) for s in sets]
    found = [
        (s, variation, database.attributes[(s, variation)])
        for s in sets
        if (s, variation) in database.attributes
    ]
    if not found:
        raise Refused(IIN.OBJECT_UNKNOWN, f"g0v{variation} is not served")
    return found
