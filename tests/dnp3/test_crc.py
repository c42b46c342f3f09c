"""CRC-16/DNP against the catalogue, well-known frames and an independent bitwise CRC."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridwire.dnp3.crc import RESIDUE, append_crc, check_crc, crc16, crc_octets
from tests.dnp3.reference_crc import bitwise_crc


def test_catalogue_check_value() -> None:
    # The CRC catalogue's check value of CRC-16/DNP: the CRC of the ASCII digits 1 to 9.
    assert crc16(b"123456789") == 0xEA82
    assert bitwise_crc(b"123456789") == 0xEA82


# Link headers (the 8 octets before the header CRC) and the CRC octets that follow them on
# the wire, low octet first. The first is the well-known RESET_LINK_STATES frame
# 05 64 05 C0 01 00 00 04 E9 21 seen in countless captures: LENGTH 5 (no user data),
# CONTROL C0 = DIR|PRM|function 0, destination 0x0001, source 0x0400 (1024). The others are
# the headers test_link.py builds; each is also checked against the bitwise CRC.
HEADER_VECTORS = [
    ("056405C001000004", "E921"),  # reset link states, master 1024 -> outstation 1
    ("056405F200040100", "1403"),  # test link states, FCB=1 FCV=1, 1 -> 1024
    ("056405C900040100", "9881"),  # request link status, 1 -> 1024
    ("05640BD300040100", "4AC9"),  # confirmed user data, 6 octets, 1 -> 1024
    ("05640BC400040100", "CA8A"),  # unconfirmed user data, 6 octets, 1 -> 1024
    ("0564050001000004", "2770"),  # ACK, outstation 1024 -> master 1
    ("0564050101000004", "2153"),  # NACK
    ("0564050B01000004", "6440"),  # LINK_STATUS
    ("0564051B01000004", "F6EA"),  # LINK_STATUS with DFC
    ("0564050F01000004", "7CCC"),  # NOT_SUPPORTED
    ("0564FFC400040100", "19F1"),  # unconfirmed user data, 250 octets
]


@pytest.mark.parametrize(("header", "crc"), HEADER_VECTORS)
def test_header_vectors(header: str, crc: str) -> None:
    octets = bytes.fromhex(header)
    expected = bytes.fromhex(crc)
    assert bitwise_crc(octets).to_bytes(2, "little") == expected
    assert crc_octets(octets) == expected
    assert crc16(octets) == int.from_bytes(expected, "little")
    assert append_crc(octets) == octets + expected
    assert check_crc(octets + expected)


def test_low_octet_first() -> None:
    # E9 21 on the wire is the value 0x21E9.
    assert crc16(bytes.fromhex("056405C001000004")) == 0x21E9


def test_check_rejects_a_flipped_bit_and_short_input() -> None:
    good = bytes.fromhex("056405C001000004E921")
    for bit in range(len(good) * 8):
        bad = bytearray(good)
        bad[bit // 8] ^= 1 << (bit % 8)
        assert not check_crc(bytes(bad)), bit
    assert not check_crc(b"")
    assert not check_crc(b"\xe9")


def test_empty_data_and_residue() -> None:
    # Nothing shifted in: the register stays 0 and the final XOR gives FFFF.
    assert crc16(b"") == 0xFFFF == bitwise_crc(b"")
    # Octets followed by their own CRC always leave the same value: the catalogue's residue
    # 0x66C5, complemented by the final XOR.
    assert RESIDUE == 0x66C5 ^ 0xFFFF
    assert crc16(b"\xff\xff") == RESIDUE


def test_accepts_memoryview_and_bytearray() -> None:
    data = b"xx123456789yy"
    assert crc16(memoryview(data)[2:11]) == 0xEA82
    assert crc16(bytearray(b"123456789")) == 0xEA82


@given(st.binary(max_size=300))
def test_agrees_with_bitwise(data: bytes) -> None:
    assert crc16(data) == bitwise_crc(data)
    assert check_crc(append_crc(data))
