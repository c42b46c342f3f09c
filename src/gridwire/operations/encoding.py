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

A slice of decoded objects (a scan's ``objects``) is written by msgspec, which writes a slotted
dataclass about 2.5 times as fast as orjson (DESIGN D150), when its octets are sure to be
orjson's: every value a boolean, an integer, text, null or a float below 1e16 (from 1e16 up
orjson writes an exponent as ``e+16`` and msgspec as ``e16``; msgspec would write octets as
base64). Any other slice is written by orjson.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import OrderedDict
from pathlib import PurePath
from typing import Any

import msgspec
import orjson
from pydantic import BaseModel

from gridwire.dnp3.objects.records import DnpObject

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


_OBJECTS = msgspec.json.Encoder()
_PLAIN = (bool, int, str, type(None))
_EXPONENT = 1e16  # orjson and msgspec write every float below this alike


def _slice(items: list[Any]) -> bytes:
    """A JSON array of ``items``, exactly as :func:`dumps` writes it."""
    for item in items:
        if type(item) is not DnpObject:
            return dumps(items)
        value = item.value
        if not (
            isinstance(value, _PLAIN) or (type(value) is float and -_EXPONENT < value < _EXPONENT)
        ):
            return dumps(items)
    return _OBJECTS.encode(items)


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
    if not _big(value):
        return dumps(value)
    parts: list[bytes] = []
    await _encode_into(value, parts, 0)
    return b"".join(parts)


async def _encode_into(value: Any, parts: list[bytes], depth: int) -> None:
    if not _big(value, depth):
        parts.append(dumps(value))
    elif isinstance(value, list) and len(value) > CHUNK:
        parts.append(b"[")
        for start in range(0, len(value), CHUNK):
            if start:
                parts.append(b",")
                await asyncio.sleep(0)
            parts.append(_slice(value[start : start + CHUNK])[1:-1])
        parts.append(b"]")
    elif isinstance(value, list):
        parts.append(b"[")
        for position, item in enumerate(value):
            if position:
                parts.append(b",")
            await _encode_into(item, parts, depth + 1)
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
            await _encode_into(item, parts, depth + 1)
        parts.append(b"}")


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
