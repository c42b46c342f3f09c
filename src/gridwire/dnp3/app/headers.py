"""Object headers (IEEE 1815-2012 4.2.2.7): group, variation, qualifier and range field.

The qualifier octet holds the object prefix code in bits 4-6 and the range specifier code in
bits 0-3; bit 7 is reserved and must be zero. Combinations read here:

======  =====================================================================
0x00-2  start and stop indexes, 1/2/4 octets each; objects packed, no prefix
0x03-5  start and stop virtual addresses, 1/2/4 octets (read as indexes)
0x06    no range field: all objects (requests only; carries no objects)
0x07-9  count of objects, 1/2/4 octets; objects carry no index
0x17    1-octet count, each object prefixed by a 1-octet index
0x28    2-octet count, 2-octet index prefix; 0x39 4-octet count, 4-octet index
0x47-69 count (1/2/4 octets) of objects each prefixed by its size (1/2/4 octets)
0x4B-6B free format: 1-octet count, each object prefixed by its size (0x5B: 2 octets)
======  =====================================================================

Encoders choose the smallest qualifier that can carry the range, count or indexes.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

from gridwire.dnp3.errors import DecodeError, EncodeError
from gridwire.dnp3.objects.records import DnpObject

START_STOP_8, START_STOP_16, START_STOP_32 = 0x00, 0x01, 0x02
ALL_OBJECTS = 0x06
COUNT_8, COUNT_16, COUNT_32 = 0x07, 0x08, 0x09
INDEX_8, INDEX_16, INDEX_32 = 0x17, 0x28, 0x39
FREE_FORMAT = 0x5B

# Range specifier code -> octets of each of start and stop / of the count.
_START_STOP = {0x0: 1, 0x1: 2, 0x2: 4, 0x3: 1, 0x4: 2, 0x5: 4}
_COUNT = {0x7: 1, 0x8: 2, 0x9: 4, 0xB: 1}
# Object prefix code -> octets of the index / of the size before each object.
INDEX_PREFIX = {1: 1, 2: 2, 3: 4}
SIZE_PREFIX = {4: 1, 5: 2, 6: 4}
_UINT = {1: "B", 2: "H", 4: "I"}
_PAIR = {width: struct.Struct("<" + code * 2) for width, code in _UINT.items()}
_ONE = {width: struct.Struct("<" + code) for width, code in _UINT.items()}
_LIMIT = {1: 0xFF, 2: 0xFFFF, 4: 0xFFFFFFFF}


class HeaderError(DecodeError):
    """An object header that cannot be read; the walk reports it as undecoded."""


@dataclass(slots=True)
class ObjectHeader:
    """One object header of a fragment and the objects decoded under it.

    ``start``/``stop`` are set for start-stop qualifiers, ``count`` for every qualifier but
    0x06 (for start-stop it is stop - start + 1). ``indices`` lists the points a request
    names by index prefix without object data (a read of index-prefixed points).
    """

    group: int
    variation: int
    qualifier: int
    offset: int
    start: int | None = None
    stop: int | None = None
    count: int | None = None
    indices: list[int] | None = None
    objects: list[DnpObject] = field(default_factory=list)

    @property
    def prefix_code(self) -> int:
        return self.qualifier >> 4 & 0x07

    @property
    def range_code(self) -> int:
        return self.qualifier & 0x0F


def read_header(data: bytes, pos: int) -> tuple[ObjectHeader, int]:
    """Read the header at ``pos``; returns it and the offset of what follows its range field.
    Raises :class:`HeaderError` when it is truncated, its qualifier is not defined, or its
    range is impossible (stop below start)."""
    if len(data) - pos < 3:
        raise HeaderError(f"object header truncated: {len(data) - pos} of 3 octets")
    group, variation, qualifier = data[pos], data[pos + 1], data[pos + 2]
    header = ObjectHeader(group, variation, qualifier, pos)
    pos += 3
    prefix, code = qualifier >> 4, qualifier & 0x0F
    if prefix > 6:
        raise HeaderError(f"qualifier 0x{qualifier:02X}: reserved bit 7 or prefix code 7 set")
    if code in _START_STOP and prefix == 0:
        width = _START_STOP[code]
        if len(data) - pos < 2 * width:
            raise HeaderError(f"range field truncated (qualifier 0x{qualifier:02X})")
        start, stop = _PAIR[width].unpack_from(data, pos)
        if stop < start:
            raise HeaderError(f"stop {stop} is below start {start}")
        header.start, header.stop, header.count = start, stop, stop - start + 1
        return header, pos + 2 * width
    if code == 0x6 and prefix == 0:
        return header, pos
    if code in _COUNT and (code != 0xB or prefix in SIZE_PREFIX):
        width = _COUNT[code]
        if len(data) - pos < width:
            raise HeaderError(f"count field truncated (qualifier 0x{qualifier:02X})")
        (header.count,) = _ONE[width].unpack_from(data, pos)
        return header, pos + width
    raise HeaderError(f"qualifier 0x{qualifier:02X} is not defined")


# Encoding -------------------------------------------------------------------------------


def _width(value: int, what: str) -> int:
    if value < 0:
        raise EncodeError(f"{what} {value} is negative")
    for width in (1, 2, 4):
        if value <= _LIMIT[width]:
            return width
    raise EncodeError(f"{what} {value} does not fit in 32 bits")


def start_stop_qualifier(start: int, stop: int) -> int:
    """0x00, 0x01 or 0x02: the smallest start-stop qualifier for the range."""
    if stop < start:
        raise EncodeError(f"stop {stop} is below start {start}")
    return {1: START_STOP_8, 2: START_STOP_16, 4: START_STOP_32}[_width(stop, "index")]


def count_qualifier(count: int) -> int:
    """0x07, 0x08 or 0x09: the smallest count qualifier for ``count`` objects."""
    return {1: COUNT_8, 2: COUNT_16, 4: COUNT_32}[_width(count, "count")]


def index_qualifier(indices: Sequence[int]) -> int:
    """0x17, 0x28 or 0x39: the smallest index-prefix qualifier for these indexes (the count
    and every index must fit the prefix width)."""
    if not indices:
        raise EncodeError("an index-prefixed header needs at least one index")
    width = max(_width(len(indices), "count"), _width(max(indices), "index"))
    if min(indices) < 0:
        raise EncodeError(f"index {min(indices)} is negative")
    return {1: INDEX_8, 2: INDEX_16, 4: INDEX_32}[width]


def encode_header(
    group: int,
    variation: int,
    qualifier: int,
    *,
    start: int | None = None,
    stop: int | None = None,
    count: int | None = None,
) -> bytes:
    """The octets of an object header: group, variation, qualifier and its range field."""
    for name, octet in (("group", group), ("variation", variation), ("qualifier", qualifier)):
        if not 0 <= octet <= 0xFF:
            raise EncodeError(f"{name} {octet} does not fit in one octet")
    head = bytes((group, variation, qualifier))
    prefix, code = qualifier >> 4, qualifier & 0x0F
    if prefix == 0 and code in _START_STOP:
        if start is None or stop is None:
            raise EncodeError(f"qualifier 0x{qualifier:02X} needs start and stop")
        if stop < start:
            raise EncodeError(f"stop {stop} is below start {start}")
        width = _START_STOP[code]
        if start < 0 or stop > _LIMIT[width]:
            raise EncodeError(f"range {start}-{stop} does not fit qualifier 0x{qualifier:02X}")
        return head + _PAIR[width].pack(start, stop)
    if prefix == 0 and code == 0x6:
        return head
    if code in _COUNT and prefix <= 6 and (code != 0xB or prefix in SIZE_PREFIX):
        if count is None:
            raise EncodeError(f"qualifier 0x{qualifier:02X} needs a count")
        width = _COUNT[code]
        if not 0 <= count <= _LIMIT[width]:
            raise EncodeError(f"count {count} does not fit qualifier 0x{qualifier:02X}")
        return head + _ONE[width].pack(count)
    raise EncodeError(f"qualifier 0x{qualifier:02X} is not defined")


def all_header(group: int, variation: int = 0) -> bytes:
    """Qualifier 0x06: every object of the group (read, freeze, assign class...)."""
    return encode_header(group, variation, ALL_OBJECTS)


def range_header(group: int, variation: int, start: int, stop: int) -> bytes:
    """A start-stop header with the smallest qualifier (0x00/0x01/0x02)."""
    qualifier = start_stop_qualifier(start, stop)
    return encode_header(group, variation, qualifier, start=start, stop=stop)


def count_header(group: int, variation: int, count: int) -> bytes:
    """A count header with the smallest qualifier (0x07/0x08/0x09)."""
    return encode_header(group, variation, count_qualifier(count), count=count)


def index_prefixes(indices: Sequence[int], qualifier: int) -> list[bytes]:
    """Each index as the prefix the qualifier (0x17/0x28/0x39) puts before its object."""
    width = INDEX_PREFIX.get(qualifier >> 4 & 0x07)
    if width is None:
        raise EncodeError(f"qualifier 0x{qualifier:02X} has no index prefix")
    pack = _ONE[width].pack
    try:
        return [pack(index) for index in indices]
    except struct.error:
        raise EncodeError(f"an index does not fit qualifier 0x{qualifier:02X}") from None


def indexed_header(
    group: int, variation: int, indices: Sequence[int], qualifier: int | None = None
) -> bytes:
    """An index-prefixed header that names points without object data (a read of
    particular points): count, then each index."""
    qualifier = index_qualifier(indices) if qualifier is None else qualifier
    head = encode_header(group, variation, qualifier, count=len(indices))
    return head + b"".join(index_prefixes(indices, qualifier))
