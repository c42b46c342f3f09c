"""CRC-16/DNP, the check of every FT3 link header and data block (IEEE 1815-2012 clause 9).

Polynomial 0x3D65 (x^16+x^13+x^12+x^11+x^10+x^8+x^6+x^5+x^2+1), reflected input and output,
initial value 0, final XOR 0xFFFF; catalogue check value 0xEA82 for ``b"123456789"``. On the
wire the two CRC octets follow the octets they check, low octet first.

The arithmetic is fastcrc's (decision D2). Every function takes any bytes-like object, so a
caller can check a slice of a larger buffer through a ``memoryview`` without copying it.
"""

from __future__ import annotations

from typing import Final

from fastcrc.crc16 import dnp as _dnp

Octets = bytes | bytearray | memoryview
"""What the CRC functions accept: any contiguous octets."""

RESIDUE: Final = 0x993A
"""CRC-16/DNP of any octets followed by their own CRC (low octet first). Checking a block
together with its CRC against this constant costs one CRC call and no integer conversion."""


def crc16(data: Octets) -> int:
    """The CRC-16/DNP of ``data`` as an integer (0..0xFFFF)."""
    value: int = _dnp(data)
    return value


def crc_octets(data: Octets) -> bytes:
    """The two CRC octets of ``data`` as transmitted: low octet first."""
    value: int = _dnp(data)
    return value.to_bytes(2, "little")


def append_crc(data: Octets) -> bytes:
    """``data`` followed by its two CRC octets."""
    value: int = _dnp(data)
    return bytes(data) + value.to_bytes(2, "little")


def check_crc(block: Octets) -> bool:
    """Whether the last two octets of ``block`` are the CRC of the octets before them.

    False for fewer than two octets (there is no CRC to check).
    """
    if len(block) < 2:
        return False
    return bool(_dnp(block) == RESIDUE)
