"""An independent CRC-16/DNP for the tests, written from the catalogue parameters alone
(width 16, poly 0x3D65, init 0, refin true, refout true, xorout 0xFFFF, check 0xEA82): the
textbook most-significant-bit-first shift register, with each input octet and the final
register bit-reversed as refin/refout ask. It shares nothing with fastcrc (the code under
test), so a vector that both agree on is checked twice."""

from __future__ import annotations

POLY = 0x3D65


def _reflect(value: int, width: int) -> int:
    result = 0
    for bit in range(width):
        if value & (1 << bit):
            result |= 1 << (width - 1 - bit)
    return result


def bitwise_crc(data: bytes) -> int:
    register = 0
    for octet in data:
        register ^= _reflect(octet, 8) << 8
        for _ in range(8):
            carry = register & 0x8000
            register = (register << 1) & 0xFFFF
            if carry:
                register ^= POLY
    return _reflect(register, 16) ^ 0xFFFF


def crc_le(data: bytes) -> bytes:
    """The two CRC octets as DNP3 sends them, low octet first."""
    return bitwise_crc(data).to_bytes(2, "little")


def reference_frame(header: bytes, data: bytes = b"") -> bytes:
    """An FT3 frame assembled with this CRC alone, not gridwire's encoder: the 8 header
    octets and their CRC, then each block of up to 16 data octets and its CRC."""
    out = header + crc_le(header)
    for i in range(0, len(data), 16):
        out += data[i : i + 16] + crc_le(data[i : i + 16])
    return out
