"""JSON for the service's answers and events: orjson, with what orjson does not write by itself.

The master's records are slotted dataclasses (decision D3), which orjson writes natively; a
``default`` covers the rest: octets (``bytes``, octet-string values) as hexadecimal text,
pydantic models (``TaskSettings``) as their JSON dump, paths as text, sets as sorted lists.

Encoding 9000 objects takes orjson some 10-20 ms on this machine, all of it holding the event
loop (orjson never releases the GIL, so a thread would not help). :func:`encode` therefore
writes any list longer than :data:`CHUNK` items a slice at a time and yields to the loop
between slices: other clients wait at most one slice (about 1 ms), and the octets are exactly
those ``orjson.dumps`` would give. :class:`EventEncoder` encodes each published update once,
however many streams carry it.

A slice of decoded objects (a scan's ``objects``) is written by msgspec, which writes a
``DnpObject`` (a msgspec Struct, D221) about five times as fast as orjson writes it (DESIGN
D150, D206), when its octets are sure to be
orjson's: every value a boolean, an integer, text, null or a float below 1e16 (from 1e16 up
orjson writes an exponent as ``e+16`` and msgspec as ``e16``), an octet string's value
(:class:`~gridwire.dnp3.objects.records.Octets`, which msgspec hands to a hook that writes it as
hexadecimal text, D236), or a record whose fields all are; or other ``bytes`` (msgspec would
write base64: they go as hexadecimal text through structs made column by column in C). Any
other slice is written by orjson. :func:`encode_parts` gives the octets in
parts, for an envelope to be joined around them once (D207), or handed to a transport a slice
at a time as they are made (D222).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from itertools import starmap
from math import isnan
from operator import attrgetter
from pathlib import PurePath
from typing import Any, Protocol

import msgspec
import orjson
from pydantic import BaseModel

from gridwire.dnp3.app.headers import ObjectHeader
from gridwire.dnp3.objects.fixed import fixed_codec
from gridwire.dnp3.objects.packed import decode_packed, packed_size
from gridwire.dnp3.objects.records import DnpObject, Octets
from gridwire.dnp3.objects.table import Layout, lookup

CHUNK = 512
"""Lists longer than this are encoded a slice of this many items at a time."""

_OPTIONS = orjson.OPT_NON_STR_KEYS
_WALK_ITEMS = 16  # lists up to this long are looked into for big lists deeper down
_WALK_DEPTH = 5


def _default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def dumps(value: Any) -> bytes:
    """``value`` as compact JSON (orjson with the service's ``default``)."""
    return orjson.dumps(value, default=_default, option=_OPTIONS)


def _octets_hex(value: Any) -> Any:
    """msgspec's hook for what it does not write by itself: an octet string's value
    (:class:`Octets`, a ``bytes`` subclass) as hexadecimal text, as :func:`_default` does."""
    if type(value) is Octets:
        return value.hex()
    raise NotImplementedError(f"msgspec does not write {type(value).__name__} here")


_OBJECTS = msgspec.json.Encoder(enc_hook=_octets_hex)
_PLAIN = frozenset((bool, int, str, type(None), Octets))
_EXPONENT = 1e16  # orjson and msgspec write every float below this alike
_VALUE = attrgetter("value")


@cache
def _field_getters(kind: type) -> tuple[attrgetter[Any], ...] | None:
    """One getter per field of the record type ``kind``, or None when it is no record."""
    if not (isinstance(kind, type) and dataclasses.is_dataclass(kind)):
        return None
    return tuple(attrgetter(f.name) for f in dataclasses.fields(kind))


_FIELDS = tuple(f.name for f in dataclasses.fields(DnpObject))
_COLUMNS = tuple(attrgetter(name) for name in _FIELDS)
_VALUE_AT = _FIELDS.index("value")
_HEXED = msgspec.defstruct("HexedObject", [(name, Any) for name in _FIELDS], gc=False)
"""A DnpObject with its octet-string value as hexadecimal text, as msgspec writes it."""


def _hex(value: Any) -> Any:
    return value.hex() if type(value) is bytes else value


def _hexed(items: list[Any], values: list[Any], only_bytes: bool) -> list[Any]:
    """``items`` (DnpObjects) as :data:`_HEXED` structs with their ``bytes`` values as
    hexadecimal text, made column by column in C: about a third of what orjson's ``default``
    costs per object."""
    columns = [map(column, items) for column in _COLUMNS]
    columns[_VALUE_AT] = map(bytes.hex if only_bytes else _hex, values)
    return list(starmap(_HEXED, zip(*columns, strict=True)))


def _written_alike(column: list[Any], kinds: set[type] | None = None) -> bool:
    """Whether msgspec writes every value of ``column`` (whose types are ``kinds``, when
    known) as orjson does: booleans, integers, text, null, and floats strictly between
    -1e16 and 1e16 (NaN excluded)."""
    kinds = set(map(type, column)) if kinds is None else kinds
    if float in kinds:
        floats = [v for v in column if type(v) is float]
        if any(map(isnan, floats)) or not -_EXPONENT < min(floats) <= max(floats) < _EXPONENT:
            return False
        kinds = kinds - {float}
    return kinds <= _PLAIN


def _msgspec_form(items: list[Any]) -> list[Any] | None:
    """``items`` in a form msgspec writes exactly as :func:`dumps` writes them, or None.

    Every item must be a DnpObject whose value is written alike (:func:`_written_alike`),
    or is a record (a TimeAndInterval, an AnalogCommand...) whose fields all are, or is
    ``bytes`` (written as hexadecimal text through :func:`_hexed`). The checks run over
    whole columns in C (``map``), not item by item."""
    if set(map(type, items)) != {DnpObject}:
        return None
    values = list(map(_VALUE, items))
    kinds = set(map(type, values))
    if kinds == {bytes}:
        return _hexed(items, values, only_bytes=True)
    records = kinds - _PLAIN - {bytes, float}
    if not records and bytes not in kinds:
        return items if _written_alike(values, kinds) else None
    for kind in records:
        getters = _field_getters(kind)
        if getters is None:
            return None
        of_kind = values if len(kinds) == 1 else [v for v in values if type(v) is kind]
        if not all(_written_alike(list(map(getter, of_kind))) for getter in getters):
            return None
    if float in kinds and not _written_alike([v for v in values if type(v) is float]):
        return None
    return _hexed(items, values, only_bytes=False) if bytes in kinds else items


def array_json(items: list[Any]) -> bytes:
    """A JSON array of ``items``, exactly as :func:`dumps` writes it (by msgspec where it
    can, see the module's text)."""
    form = _msgspec_form(items) if items else None
    return dumps(items) if form is None else _OBJECTS.encode(form)


def fragment_json(objects: list[DnpObject], headers: list[ObjectHeader]) -> bytes:
    """The objects the decoder made for one fragment's ``headers`` (named or not, otherwise
    as made) as a JSON array, exactly as :func:`dumps` writes them: by msgspec without a look
    at them when every header's variation is always written alike (:func:`_always_alike`),
    else as :func:`array_json` writes any list."""
    if objects and all(_always_alike(h.group, h.variation) for h in headers):
        return _OBJECTS.encode(objects)
    return array_json(objects)


@cache
def _always_alike(group: int, variation: int) -> bool:
    """Whether msgspec writes every object the decoder makes for ``group``/``variation`` as
    orjson does, whatever its octets: a fixed or packed layout whose values and their
    records' fields hold no float and no plain ``bytes`` (the types are the layout's, the
    same for any octets, so one object decoded from zeros shows them)."""
    decl = lookup(group, variation)
    if decl is None or decl.layout not in (Layout.FIXED, Layout.PACKED):
        return False
    if decl.layout is Layout.PACKED:
        sample = decode_packed(decl, bytes(packed_size(decl.bits, 1)), range(1), 1)
    else:
        codec = fixed_codec(decl)
        sample = codec.ranged(bytes(codec.size), range(1), 0, True)
    (obj,) = sample
    kind: type = type(obj.value)
    getters = _field_getters(kind)
    fields = [obj.value] if getters is None else [getter(obj.value) for getter in getters]
    return {type(field) for field in fields} <= _PLAIN


def _is_record(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _big(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds a list longer than CHUNK where :func:`encode` would split it."""
    if depth > _WALK_DEPTH:
        return False
    if isinstance(value, list):
        if len(value) > CHUNK:
            return True
        return len(value) <= _WALK_ITEMS and any(_big(item, depth + 1) for item in value)
    if _is_record(value):
        return any(_big(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    if isinstance(value, dict) and len(value) <= _WALK_ITEMS:
        return all(isinstance(k, str) for k in value) and any(
            _big(v, depth + 1) for v in value.values()
        )
    return False


async def encode(value: Any) -> bytes:
    """``dumps(value)``, yielding to the event loop between slices of long lists."""
    return b"".join(await encode_parts(value))


Part = bytes | memoryview
"""A piece of an answer's JSON."""


class ListParts(Protocol):
    """Lists whose JSON is already made (an operation's :class:`EarlyObjects`, D235)."""

    def parts_for(self, items: list[Any]) -> list[Part | list[Any]] | None:
        """The JSON array of ``items`` in parts, or None when it is not made already; a
        list among the parts is written in its place a slice at a time."""


Flush = Callable[[list[bytes | memoryview]], None]
"""Takes the parts made so far, each time the encoder is about to yield (see encode_parts)."""


def is_big(value: Any) -> bool:
    """Whether :func:`encode_parts` would write ``value`` a slice at a time."""
    return _big(value)


async def encode_parts(
    value: Any, flush: Flush | None = None, made: ListParts | None = None
) -> list[bytes | memoryview]:
    """The octets of ``dumps(value)`` in parts, in order, yielding to the event loop between
    slices of long lists: an envelope around them is then joined once (1.3 MB for a
    9000-point scan), not copied once more.

    With ``flush``, the parts made so far are handed to it each time the encoder is about to
    yield, and then forgotten: a transport sends a slice while the next is made (D222). The
    parts returned are those made after the last flush. A long list whose JSON ``made``
    already has (an exchange's objects written as they arrived, D235) is taken from it."""
    if not _big(value):
        return [dumps(value)]
    parts: list[bytes | memoryview] = []
    await _encode_into(value, parts, 0, _Writing(flush, made))
    return parts


class _Writing:
    """What one :func:`encode_parts` call hands down its walk."""

    __slots__ = ("flush", "made")

    def __init__(self, flush: Flush | None, made: ListParts | None) -> None:
        self.flush = flush
        self.made = made


async def _encode_into(
    value: Any, parts: list[bytes | memoryview], depth: int, writing: _Writing
) -> None:
    if not _big(value, depth):
        parts.append(dumps(value))
    elif isinstance(value, list) and len(value) > CHUNK:
        made = None if writing.made is None else writing.made.parts_for(value)
        if made is None:
            made = [b"[", value, b"]"]
        for piece in made:
            if isinstance(piece, list):
                await _slices(piece, parts, writing.flush)
            else:
                parts.append(piece)
    elif isinstance(value, list):
        parts.append(b"[")
        for position, item in enumerate(value):
            if position:
                parts.append(b",")
            await _encode_into(item, parts, depth + 1, writing)
        parts.append(b"]")
    else:
        items = (
            [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
            if _is_record(value)
            else list(value.items())
        )
        parts.append(b"{")
        for position, (key, item) in enumerate(items):
            if position:
                parts.append(b",")
            parts.append(dumps(key))
            parts.append(b":")
            await _encode_into(item, parts, depth + 1, writing)
        parts.append(b"}")


async def _slices(value: list[Any], parts: list[bytes | memoryview], flush: Flush | None) -> None:
    """The items of a long list, comma-separated, a slice of CHUNK at a time: the loop runs
    (and the parts made so far are flushed) between slices."""
    for start in range(0, len(value), CHUNK):
        if start:
            parts.append(b",")
            if flush is not None:
                flush(parts)
                parts.clear()
            await asyncio.sleep(0)
        parts.append(memoryview(array_json(value[start : start + CHUNK]))[1:-1])


class EventEncoder:
    """Encodes published updates as JSON, each once: the bus hands every subscriber the same
    ``data`` object, so the last few encodings are kept by identity."""

    def __init__(self, keep: int = 64) -> None:
        self._keep = keep
        self._cache: OrderedDict[int, tuple[object, bytes]] = OrderedDict()

    async def data(self, data: object) -> bytes:
        key = id(data)
        cached = self._cache.get(key)
        if cached is not None and cached[0] is data:
            return cached[1]
        encoded = await encode(data)
        self._cache[key] = (data, encoded)
        if len(self._cache) > self._keep:
            self._cache.popitem(last=False)
        return encoded
