"""Frames for the master's tests, built by hand from the standard's layout with the tests'
own bitwise CRC (tests/dnp3/reference_crc.py), never with the code under test; and tshark's
reading of a pcap of them."""

from __future__ import annotations

from pathlib import Path

from gridwire.capture import Direction, build_pcap
from tests.dnp3.reference_crc import crc_le
from tests.support.tshark import tshark_fields

MASTER = 1
OUTSTATION = 1024
# The integrity poll's object headers after READ (01): g60v2, g60v3, g60v4 (classes 1, 2, 3)
# then g60v1 (class 0), each with qualifier 06 (all objects).
INTEGRITY = bytes.fromhex("3c 02 06 3c 03 06 3c 04 06 3c 01 06")


def frame(control: int, destination: int, source: int, data: bytes) -> bytes:
    """An FT3 frame: 05 64, LENGTH (5 + user data), CONTROL, DESTINATION and SOURCE (low
    octet first), the header CRC, then the user data in blocks of 16, each with its CRC."""
    header = bytes((0x05, 0x64, 5 + len(data), control)) + destination.to_bytes(2, "little")
    header += source.to_bytes(2, "little")
    out = header + crc_le(header)
    for at in range(0, len(data), 16):
        block = data[at : at + 16]
        out += block + crc_le(block)
    return out


def from_master(tpdu: bytes, source: int = MASTER) -> bytes:
    """UNCONFIRMED_USER_DATA from the master: CONTROL 0xC4 = DIR 0x80 | PRM 0x40 | 4."""
    return frame(0xC4, OUTSTATION, source, tpdu)


def from_outstation(tpdu: bytes) -> bytes:
    """UNCONFIRMED_USER_DATA from the outstation: CONTROL 0x44 = PRM 0x40 | 4 (DIR 0)."""
    return frame(0x44, MASTER, OUTSTATION, tpdu)


# READ of class 0 (g60v1, qualifier 0x06 all): application C3 (FIR|FIN, seq 3) 01 (READ)
# 3C 01 06, in one transport segment C5 (FIR 0x40 | FIN 0x80 | seq 5).
READ_CLASS0 = bytes.fromhex("c3013c0106")
READ_FRAME = from_master(bytes((0xC5,)) + READ_CLASS0)


def read_frame(app_seq: int, tr_seq: int) -> bytes:
    """Another READ of class 0 with the given application and transport sequence numbers."""
    return from_master(bytes((0xC0 | tr_seq, 0xC0 | app_seq, 0x01, 0x3C, 0x01, 0x06)))


def decode(
    tmp_path: Path,
    port: int,
    writes: list[tuple[Direction, bytes, float]],
    fields: list[str],
    display_filter: str = "",
    name: str = "capture.pcap",
) -> list[list[str]]:
    """tshark's fields of a pcap holding ``writes`` (direction, octets, seconds), one TCP
    connection from 127.0.0.1:40000 to the outstation on 127.0.0.1:``port``."""
    pcap = tmp_path / name
    pcap.write_bytes(build_pcap(("127.0.0.1", 40000), ("127.0.0.1", port), writes))
    return tshark_fields(pcap, port, fields, display_filter)
