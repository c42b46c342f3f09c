"""Decoding the objects under one object header, whatever their layout and qualifier.

:func:`decode_objects` is called by the fragment walk (:mod:`gridwire.dnp3.app.fragments`)
for each header that carries object data. It raises :class:`DecodeError` when the objects
cannot be sized (a range beyond the data, a count of zero, a qualifier the variation cannot
take); the walk reports that as undecoded and stops.

Relative times (g2v3, g4v3) add to the last common time-of-occurrence (g51) decoded earlier
in the same fragment, and take its synchronized flag. With no CTO before them they decode
with ``time_ms`` and ``synchronized`` None: their value and flags are still good.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import repeat

from gridwire.dnp3.app.headers import INDEX_PREFIX, SIZE_PREFIX, ObjectHeader
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.attributes import read_attribute
from gridwire.dnp3.objects.fixed import fixed_codec
from gridwire.dnp3.objects.freeformat import decode_free
from gridwire.dnp3.objects.packed import decode_packed, packed_size
from gridwire.dnp3.objects.records import DnpObject
from gridwire.dnp3.objects.table import Layout, Variation

_UINT = {1: struct.Struct("<B"), 2: struct.Struct("<H"), 4: struct.Struct("<I")}


@dataclass(slots=True)
class TimeBase:
    """The last common time-of-occurrence (g51) of the fragment being decoded."""

    time_ms: int | None = None
    synchronized: bool | None = None


def _need(decl: Variation, count: int, size: int, pos: int, end: int) -> int:
    if pos + size > end:
        raise DecodeError(
            f"g{decl.group}v{decl.variation}: {count} objects need {size} octets, "
            f"{end - pos} remain"
        )
    return pos + size


def _refuse(decl: Variation, header: ObjectHeader) -> DecodeError:
    return DecodeError(
        f"g{decl.group}v{decl.variation} ({decl.layout.value} layout) cannot take "
        f"qualifier 0x{header.qualifier:02X}"
    )


def _unprefixed(
    decl: Variation, header: ObjectHeader, view: memoryview, pos: int, base: TimeBase
) -> tuple[list[DnpObject], int]:
    count = header.count or 0
    indices: Iterable[int | None] = (
        repeat(None, count) if header.start is None else range(header.start, header.start + count)
    )
    end = len(view)
    if decl.layout is Layout.FIXED:
        codec = fixed_codec(decl)
        stop = _need(decl, count, count * codec.size, pos, end)
        return codec.ranged(view[pos:stop], indices, base.time_ms, base.synchronized), stop
    if decl.layout is Layout.PACKED:
        stop = _need(decl, count, packed_size(decl.bits, count), pos, end)
        return decode_packed(decl, view[pos:stop], indices, count), stop
    if decl.layout is Layout.ATTRIBUTE:
        objects = []
        for index in indices:
            value, pos = read_attribute(view, pos, end)
            objects.append(_plain(decl, index, value))
        return objects, pos
    if decl.layout is Layout.NONE:
        return [], pos
    raise _refuse(decl, header)


def _index_prefixed(
    decl: Variation, header: ObjectHeader, view: memoryview, pos: int, base: TimeBase
) -> tuple[list[DnpObject], int]:
    count = header.count or 0
    width = INDEX_PREFIX[header.prefix_code]
    end = len(view)
    if decl.layout is Layout.FIXED:
        codec = fixed_codec(decl)
        prefixed = codec.prefix_read[width]
        stop = _need(decl, count, count * prefixed.size, pos, end)
        return codec.prefixed(view[pos:stop], prefixed, base.time_ms, base.synchronized), stop
    if decl.layout is Layout.ATTRIBUTE:
        objects = []
        for _ in range(count):
            _need(decl, 1, width, pos, end)
            (index,) = _UINT[width].unpack_from(view, pos)
            value, pos = read_attribute(view, pos + width, end)
            objects.append(_plain(decl, index, value))
        return objects, pos
    raise _refuse(decl, header)


def _size_prefixed(
    decl: Variation, header: ObjectHeader, view: memoryview, pos: int, base: TimeBase
) -> tuple[list[DnpObject], int]:
    width = SIZE_PREFIX[header.prefix_code]
    end = len(view)
    objects: list[DnpObject] = []
    for _ in range(header.count or 0):
        _need(decl, 1, width, pos, end)
        (size,) = _UINT[width].unpack_from(view, pos)
        start = pos + width
        pos = _need(decl, 1, size, start, end)
        if decl.layout is Layout.FREE and decl.free is not None:
            objects.append(_plain(decl, None, decode_free(decl.free, bytes(view[start:pos]))))
        elif decl.layout is Layout.FIXED and size == fixed_codec(decl).size:
            codec = fixed_codec(decl)
            objects += codec.ranged(view[start:pos], (None,), base.time_ms, base.synchronized)
        elif decl.layout is Layout.ATTRIBUTE:
            value, stop = read_attribute(view, start, pos)
            if stop != pos:
                raise DecodeError(f"device attribute of {stop - start} octets in {size}")
            objects.append(_plain(decl, None, value))
        elif decl.layout is Layout.FIXED:
            raise DecodeError(
                f"g{decl.group}v{decl.variation} objects are {fixed_codec(decl).size} octets, "
                f"not {size}"
            )
        else:
            raise _refuse(decl, header)
    return objects, pos


def _plain(decl: Variation, index: int | None, value: object) -> DnpObject:
    return DnpObject(
        decl.point_type,
        decl.group,
        decl.variation,
        index,
        None,
        value,  # type: ignore[arg-type]
        None,
        None,
        None,
        decl.event,
    )


def decode_objects(
    decl: Variation, header: ObjectHeader, view: memoryview, pos: int, base: TimeBase
) -> int:
    """Decode the objects of ``header`` starting at ``pos`` into ``header.objects``; returns
    the offset after them. A g51 CTO becomes the time base of relative times after it."""
    if header.range_code == 0x6:
        return pos  # "all objects": a request's header, no data
    if header.count == 0:
        raise DecodeError(f"g{decl.group}v{decl.variation}: count of zero objects")
    prefix = header.prefix_code
    if prefix == 0:
        objects, pos = _unprefixed(decl, header, view, pos, base)
    elif prefix in INDEX_PREFIX:
        objects, pos = _index_prefixed(decl, header, view, pos, base)
    else:
        objects, pos = _size_prefixed(decl, header, view, pos, base)
    header.objects = objects
    if decl.synchronized is not None and objects:
        last = objects[-1]
        base.time_ms = last.time_ms
        base.synchronized = decl.synchronized
    return pos
