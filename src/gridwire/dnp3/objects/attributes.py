"""Device attributes (group 0): each object is a data type code, a length and the value
(IEEE 1815-2012 11.9.7 and Table 11-3). The variation names the attribute (209-255 in the
standard set 0; 254 "all" and 255 "list of attribute variations" in reads); the point index
is the attribute set.

An extended list (type 255) counts its length from 256: a length octet of n means n + 256
octets of list.
"""

from __future__ import annotations

import struct

from gridwire.dnp3.errors import DecodeError, EncodeError
from gridwire.dnp3.objects.records import Attribute, AttributeEntry
from gridwire.dnp3.objects.singles import single_bits, single_from_octets
from gridwire.dnp3.objects.times import TIME48_MAX

DATA_TYPES: dict[int, str] = {
    1: "VSTR",  # visible string
    2: "UINT",
    3: "INT",
    4: "FLT",
    5: "OSTR",  # octet string
    6: "BSTR",  # bit string
    7: "TIME",  # DNP3 time, 6 octets
    254: "LIST",  # list of (variation u8, properties u8)
    255: "EXTLIST",  # the same, 256-511 octets long
}
_CODES = {name: code for code, name in DATA_TYPES.items()}
_EXTENDED = 256


def read_attribute(data: bytes | memoryview, pos: int, end: int) -> tuple[Attribute, int]:
    """The attribute at ``pos`` (which must end by ``end``) and the offset after it."""
    if end - pos < 2:
        raise DecodeError(f"device attribute truncated: {end - pos} of 2 header octets")
    code, length = data[pos], data[pos + 1]
    if code == 255:
        length += _EXTENDED
    start, stop = pos + 2, pos + 2 + length
    if stop > end:
        raise DecodeError(f"device attribute of {length} octets: {end - start} remain")
    kind = DATA_TYPES.get(code)
    raw = bytes(data[start:stop])
    value: str | int | float | bytes | list[AttributeEntry]
    if kind == "VSTR":
        value = raw.decode("utf-8", "replace")
    elif kind in ("UINT", "INT") and 1 <= length <= 8:
        value = int.from_bytes(raw, "little", signed=kind == "INT")
    elif kind == "FLT" and length == 4:
        value = single_from_octets(raw, 0)
    elif kind == "FLT" and length == 8:
        (value,) = struct.unpack("<d", raw)
    elif kind in ("OSTR", "BSTR"):
        value = raw
    elif kind == "TIME" and length == 6:
        value = int.from_bytes(raw, "little")
    elif kind in ("LIST", "EXTLIST") and length % 2 == 0:
        value = [AttributeEntry(raw[k], raw[k + 1]) for k in range(0, length, 2)]
    elif kind is None:
        raise DecodeError(f"unknown device attribute data type {code}")
    else:
        raise DecodeError(f"device attribute {kind} cannot be {length} octets long")
    return Attribute(kind, value), stop


def _integer(value: object, signed: bool) -> bytes:
    if not isinstance(value, int):
        raise EncodeError(f"an integer attribute needs an int, not {value!r}")
    for width in (1, 2, 4, 8):
        try:
            return value.to_bytes(width, "little", signed=signed)
        except OverflowError:
            continue
    raise EncodeError(f"attribute value {value} does not fit 8 octets")


def _float(value: object) -> bytes:
    if not isinstance(value, int | float):
        raise EncodeError(f"a FLT attribute needs a number, not {value!r}")
    wide = struct.pack("<d", value)
    try:
        narrow = struct.pack("<I", single_bits(float(value)))
    except EncodeError:
        return wide
    # a single when it holds the value exactly (bit for bit, NaNs included)
    return narrow if struct.pack("<d", single_from_octets(narrow, 0)) == wide else wide


def _body(attribute: Attribute) -> bytes:
    kind, value = attribute.data_type, attribute.value
    if kind == "VSTR" and isinstance(value, str):
        return value.encode("utf-8")
    if kind in ("UINT", "INT"):
        return _integer(value, signed=kind == "INT")
    if kind == "FLT":
        return _float(value)
    if kind in ("OSTR", "BSTR") and isinstance(value, bytes | bytearray):
        return bytes(value)
    if kind == "TIME" and isinstance(value, int) and 0 <= value <= TIME48_MAX:
        return value.to_bytes(6, "little")
    if kind in ("LIST", "EXTLIST") and isinstance(value, list):
        return b"".join(bytes((entry.variation, entry.properties)) for entry in value)
    raise EncodeError(f"cannot encode {value!r} as a {kind} device attribute")


def encode_attribute(attribute: Attribute) -> bytes:
    """Data type code, length and value of a device attribute."""
    kind = attribute.data_type.strip().upper()
    if kind not in _CODES:
        raise EncodeError(f"unknown device attribute data type {attribute.data_type!r}")
    try:
        body = _body(Attribute(kind, attribute.value))
    except (ValueError, struct.error) as exc:
        raise EncodeError(f"cannot encode device attribute: {exc}") from None
    length = len(body) - (_EXTENDED if kind == "EXTLIST" else 0)
    if not 0 <= length <= 0xFF:
        raise EncodeError(f"a {kind} device attribute cannot hold {len(body)} octets")
    return bytes((_CODES[kind], length)) + body
