"""IEEE 754 singles (f32) that keep their bit patterns.

``struct`` converts a single to a Python float through the C ``float`` to ``double`` cast,
which turns a signalling NaN into a quiet one (0x7F800001 comes back as 0x7FC00001). A DNP3
value must survive decoding and encoding exactly, so NaN singles are widened and narrowed here
by moving the sign and payload bits, as the hardware does for quiet NaNs.
"""

from __future__ import annotations

import struct

from gridwire.dnp3.errors import EncodeError

_D, _Q, _F, _I = struct.Struct("<d"), struct.Struct("<Q"), struct.Struct("<f"), struct.Struct("<I")


def single_from_octets(block: bytes | memoryview, offset: int) -> float:
    """The IEEE single at ``offset`` as a float whose NaN sign and payload are kept (struct
    quiets signalling NaNs)."""
    (bits,) = _I.unpack_from(block, offset)
    if bits & 0x7F800000 != 0x7F800000 or not bits & 0x7FFFFF:
        (value,) = _F.unpack_from(block, offset)
        return float(value)
    wide = (bits >> 31) << 63 | 0x7FF << 52 | (bits & 0x7FFFFF) << 29
    (value,) = _D.unpack(_Q.pack(wide))
    return float(value)


def single_bits(value: float) -> int:
    """The bit pattern of ``value`` as an IEEE single; a NaN keeps its sign and payload."""
    if value != value:
        (wide,) = _Q.unpack(_D.pack(value))
        payload = wide >> 29 & 0x7FFFFF
        return int((wide >> 63) << 31 | 0x7F800000 | (payload or 0x400000))
    try:
        (bits,) = _I.unpack(_F.pack(value))
    except (OverflowError, struct.error) as exc:
        raise EncodeError(f"{value!r} does not fit an IEEE single: {exc}") from None
    return int(bits)
