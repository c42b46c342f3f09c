"""Free-format objects (group 70, file transfer): each object travels with its size
(qualifier 0x5B), so its layout is read field by field from the declaration's
:class:`~gridwire.dnp3.objects.table.FreeFormat` (IEEE 1815-2012 Annex A, group 70).

A string field (``S``) is an offset from the start of the object (u16) and a size (u16) in
the fixed part, its octets following the fixed part in declaration order; ``R``/``D`` fields
are the rest of the object. Strings are UTF-8 (invalid sequences read as U+FFFD).
"""

from __future__ import annotations

import struct
from dataclasses import fields

from gridwire.dnp3.errors import DecodeError, EncodeError
from gridwire.dnp3.objects.records import Value
from gridwire.dnp3.objects.table import FreeFormat

# File status codes of g70v4 and g70v6.
FILE_STATUS: dict[int, str] = {
    0: "SUCCESS",
    1: "PERMISSION_DENIED",
    2: "INVALID_MODE",
    3: "FILE_NOT_FOUND",
    4: "FILE_LOCKED",
    5: "TOO_MANY_OPEN",
    6: "INVALID_HANDLE",
    7: "WRITE_BLOCK_SIZE",
    8: "COMM_LOST",
    9: "CANNOT_ABORT",
    16: "NOT_OPENED",
    17: "HANDLE_EXPIRED",
    18: "BUFFER_OVERRUN",
    19: "FATAL",
    20: "BLOCK_SEQ",
    255: "UNDEFINED",
}
_STATUS_CODES = {name: code for code, name in FILE_STATUS.items()}
LAST_BLOCK = 0x80000000

# Octets each kind occupies in the fixed part (S: offset and size).
_CODES = {"B": "B", "H": "H", "I": "I", "T": "IH", "S": "HH", "K": "I", "F": "B"}


def _fixed_struct(layout: FreeFormat) -> struct.Struct:
    return struct.Struct("<" + "".join(_CODES.get(kind, "") for _, kind in layout.fields))


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def decode_free(layout: FreeFormat, obj: bytes) -> Value:
    """The record (or text) one free-format object of ``len(obj)`` octets holds."""
    fixed = _fixed_struct(layout)
    if len(obj) < fixed.size:
        raise DecodeError(f"object of {len(obj)} octets is shorter than its {fixed.size} fixed")
    slots = iter(fixed.unpack_from(obj))
    values: list[object] = []
    for _, kind in layout.fields:
        if kind == "T":
            values.append(next(slots) | next(slots) << 32)
        elif kind == "S":
            offset, size = next(slots), next(slots)
            if offset + size > len(obj) or offset < fixed.size:
                raise DecodeError(f"string at {offset}+{size} is outside the object")
            values.append(_text(obj[offset : offset + size]))
        elif kind == "K":
            block = next(slots)
            values += [block & ~LAST_BLOCK, bool(block & LAST_BLOCK)]
        elif kind == "F":
            code = next(slots)
            values.append(FILE_STATUS.get(code, f"UNDEFINED_{code}"))
        elif kind == "R":
            values.append(_text(obj[fixed.size :]))
        elif kind == "D":
            values.append(bytes(obj[fixed.size :]))
        else:
            values.append(next(slots))
    if layout.record is str:
        return str(values[0])
    return layout.record(*values)  # type: ignore[no-any-return]


def _status_code(status: object) -> int:
    if isinstance(status, int):
        return status
    name = str(status).strip().upper()
    if name in _STATUS_CODES:
        return _STATUS_CODES[name]
    if name.startswith("UNDEFINED_") and name[10:].isdigit():
        return int(name[10:])
    raise EncodeError(f"unknown file status {status!r}")


def encode_free(layout: FreeFormat, value: object) -> bytes:
    """The octets of one free-format object (without its size prefix)."""
    if layout.record is str:
        if not isinstance(value, str):
            raise EncodeError(f"a file specification string needs str, not {value!r}")
        return value.encode("utf-8")
    if not isinstance(value, layout.record):
        raise EncodeError(f"expected a {layout.record.__name__}, not {value!r}")
    attrs = {f.name: getattr(value, f.name) for f in fields(value)}
    fixed = _fixed_struct(layout)
    slots: list[int] = []
    tail = b""
    for name, kind in layout.fields:
        item = attrs[name]
        if kind == "T":
            slots += [item & 0xFFFFFFFF, item >> 32]
        elif kind == "S":
            raw = str(item).encode("utf-8")
            slots += [fixed.size + len(tail), len(raw)]
            tail += raw
        elif kind == "K":
            slots.append(item | (LAST_BLOCK if attrs["last"] else 0))
        elif kind == "F":
            slots.append(_status_code(item))
        elif kind == "R":
            tail += str(item).encode("utf-8")
        elif kind == "D":
            tail += bytes(item)
        else:
            slots.append(item)
    try:
        return fixed.pack(*slots) + tail
    except struct.error as exc:
        raise EncodeError(f"cannot encode {value!r}: {exc}") from None
