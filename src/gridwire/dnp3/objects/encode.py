"""Encoding objects: one object header and its objects, from items.

:func:`encode_objects` is what the simulated outstation builds responses with and what the
request builders build commands with::

    encode_objects(30, 1, [Item(0, 42), Item(1, -7)])          # 1E 01 00 00 01 ...
    encode_objects(2, 2, [Item(5, True, time_ms=t)])            # event: 02 02 17 01 05 ...
    encode_objects(12, 1, [Item(3, crob("LATCH_ON"))])          # CROB, index-prefixed
    encode_objects(41, 3, [Item(0, AnalogCommand(1.5, "SUCCESS"))])
    encode_objects(50, 1, [Item(None, time_ms)])                # time write, count 1
    encode_objects(80, 1, [Item(7, False)])                     # clear DEVICE_RESTART

An item carries the index, the value (a bool for binaries, a state name for double-bit
inputs, a number, a :class:`~.records.Crob`, :class:`~.records.AnalogCommand`,
:class:`~.records.TimeAndInterval`, :class:`~.records.Attribute`, a g70 record, octets...),
the raw flags octet (ONLINE unless given; a binary's state bit comes from the value) and the
time in ms since the epoch for timed variations. Relative-time variations (g2v3, g4v3) need
``cto_ms``, the time of the g51 object sent before them.

The qualifier, unless forced, is chosen as the smallest that fits: free format (0x5B) for
g70; a count (0x07-0x09) for objects without indexes (g50v1-3, g51, g52); start-stop
(0x00-0x02) for contiguous ascending indexes of static objects; an index prefix
(0x17/0x28/0x39) for events, commands and sparse sets.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gridwire.dnp3.app.headers import (
    ALL_OBJECTS,
    FREE_FORMAT,
    INDEX_PREFIX,
    SIZE_PREFIX,
    count_qualifier,
    encode_header,
    index_prefixes,
    index_qualifier,
    start_stop_qualifier,
)
from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.attributes import encode_attribute
from gridwire.dnp3.objects.fixed import fixed_codec
from gridwire.dnp3.objects.flags import ONLINE
from gridwire.dnp3.objects.freeformat import encode_free
from gridwire.dnp3.objects.packed import encode_packed
from gridwire.dnp3.objects.records import Attribute
from gridwire.dnp3.objects.table import Layout, Variation, lookup

_START_STOP_CODES = frozenset({0x0, 0x1, 0x2})
_SIZE_FORMATS = {1: struct.Struct("<B"), 2: struct.Struct("<H"), 4: struct.Struct("<I")}


@dataclass(slots=True)
class Item:
    """One object to encode."""

    index: int | None
    value: Any
    flags: int = ONLINE
    time_ms: int | None = None


def _contiguous(indices: list[int | None]) -> bool:
    first = indices[0]
    return first is not None and all(index == first + k for k, index in enumerate(indices))


def _choose(decl: Variation, indices: list[int | None]) -> int:
    if decl.layout is Layout.FREE:
        return FREE_FORMAT
    if not decl.indexed:
        return count_qualifier(len(indices))
    if any(index is None for index in indices):
        raise EncodeError(f"g{decl.group}v{decl.variation} objects need indexes")
    if not decl.prefixed and _contiguous(indices):
        return start_stop_qualifier(indices[0] or 0, indices[-1] or 0)
    if decl.layout is Layout.PACKED:
        raise EncodeError("packed objects need contiguous ascending indexes")
    return index_qualifier([index for index in indices if index is not None])


def _fixed_objects(
    decl: Variation, items: list[Item], width: int, cto_ms: int | None
) -> list[bytes]:
    codec = fixed_codec(decl)
    out: list[bytes] = []
    for item in items:
        try:
            slots = codec.row(item.index, item.value, item.flags, item.time_ms, cto_ms)
            if width:
                out.append(codec.prefix_write[width].pack(item.index, *slots))
            else:
                out.append(codec.write.pack(*slots))
        except EncodeError:
            raise
        except (struct.error, TypeError, ValueError, AttributeError, KeyError) as exc:
            hint = (
                " (a relative time needs cto_ms)" if cto_ms is None and "None" in str(exc) else ""
            )
            raise EncodeError(
                f"g{decl.group}v{decl.variation} cannot encode {item!r}: {exc}{hint}"
            ) from None
    return out


def _one(decl: Variation, item: Item) -> bytes:
    """A variable-size object's octets (attributes, file objects)."""
    if decl.layout is Layout.ATTRIBUTE:
        if not isinstance(item.value, Attribute):
            raise EncodeError(f"a device attribute needs an Attribute value, not {item.value!r}")
        return encode_attribute(item.value)
    if decl.free is not None:
        return encode_free(decl.free, item.value)
    raise EncodeError(f"g{decl.group}v{decl.variation} carries no object data")


def _body(decl: Variation, items: list[Item], qualifier: int, cto_ms: int | None) -> bytes:
    prefix = qualifier >> 4 & 0x07
    if prefix in SIZE_PREFIX:
        if decl.layout is Layout.FIXED:
            objects = _fixed_objects(decl, items, 0, cto_ms)
        else:
            objects = [_one(decl, item) for item in items]
        size = _SIZE_FORMATS[SIZE_PREFIX[prefix]]
        try:
            return b"".join(size.pack(len(obj)) + obj for obj in objects)
        except struct.error:
            raise EncodeError(f"an object is too long for qualifier 0x{qualifier:02X}") from None
    if decl.layout is Layout.FIXED:
        return b"".join(_fixed_objects(decl, items, INDEX_PREFIX.get(prefix, 0), cto_ms))
    if decl.layout is Layout.PACKED and prefix == 0:
        return encode_packed(decl, [item.value for item in items])
    if decl.layout is Layout.ATTRIBUTE:
        objects = [_one(decl, item) for item in items]
        if prefix in INDEX_PREFIX:
            indices = [item.index or 0 for item in items]
            prefixes = index_prefixes(indices, qualifier)
            return b"".join(p + obj for p, obj in zip(prefixes, objects, strict=True))
        return b"".join(objects)
    raise EncodeError(
        f"g{decl.group}v{decl.variation} ({decl.layout.value} layout) cannot take "
        f"qualifier 0x{qualifier:02X}"
    )


def encode_objects(
    group: int,
    variation: int,
    items: Iterable[Item],
    qualifier: int | None = None,
    *,
    cto_ms: int | None = None,
) -> bytes:
    """An object header and its objects. ``qualifier`` forces one (it must fit); otherwise
    the smallest that fits is chosen (see the module's description)."""
    decl = lookup(group, variation)
    if decl is None:
        raise EncodeError(f"unknown object g{group}v{variation}")
    listed = list(items)
    if not listed:
        raise EncodeError("an object header needs at least one object")
    for item in listed:
        if not 0 <= item.flags <= 0xFF:
            raise EncodeError(f"flags {item.flags} do not fit one octet")
    indices = [item.index for item in listed]
    chosen = _choose(decl, indices) if qualifier is None else qualifier
    prefix, code = chosen >> 4 & 0x07, chosen & 0x0F
    if chosen == ALL_OBJECTS:
        raise EncodeError("qualifier 0x06 carries no objects")
    if prefix == 0 and code in _START_STOP_CODES:
        if not _contiguous(indices):
            raise EncodeError(
                f"qualifier 0x{chosen:02X} needs contiguous ascending indexes, not {indices}"
            )
        first = indices[0] or 0
        head = encode_header(group, variation, chosen, start=first, stop=first + len(indices) - 1)
    else:
        if prefix in INDEX_PREFIX and any(index is None for index in indices):
            raise EncodeError(f"qualifier 0x{chosen:02X} needs an index for every object")
        head = encode_header(group, variation, chosen, count=len(listed))
    return head + _body(decl, listed, chosen, cto_ms)
