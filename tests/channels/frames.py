"""FT3 frames laid out by hand (IEEE 1815-2012 clause 9), CRCs from the tests' own bitwise
CRC-16/DNP, which shares nothing with the code under test."""

from __future__ import annotations

from tests.dnp3.reference_crc import bitwise_crc


def frame(control: int, destination: int, source: int, data: bytes) -> bytes:
    header = bytes((0x05, 0x64, 5 + len(data), control))
    header += destination.to_bytes(2, "little") + source.to_bytes(2, "little")
    out = header + bitwise_crc(header).to_bytes(2, "little")
    for at in range(0, len(data), 16):
        block = data[at : at + 16]
        out += block + bitwise_crc(block).to_bytes(2, "little")
    return out
