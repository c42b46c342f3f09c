"""A reader of the pcap files the tests check, written from the format alone (independent of
gridwire.capture): records, and the TCP segments inside Ethernet/IPv4 or IPv6 packets."""

from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass
class Segment:
    time_us: int
    source_port: int
    destination_port: int
    seq: int
    ack: int
    flags: int
    payload: bytes


def records(capture: bytes) -> list[tuple[int, bytes]]:
    """(time in microseconds, packet) of each record; checks the global header."""
    assert capture[:4] == bytes.fromhex("D4 C3 B2 A1"), "not a little-endian microsecond pcap"
    assert struct.unpack_from("<I", capture, 20)[0] == 1, "link type is not Ethernet"
    out = []
    position = 24
    while position < len(capture):
        seconds, micros, captured, original = struct.unpack_from("<IIII", capture, position)
        assert captured == original
        packet = capture[position + 16 : position + 16 + captured]
        assert len(packet) == captured, "truncated record"
        out.append((seconds * 1_000_000 + micros, packet))
        position += 16 + captured
    return out


def segments(capture: bytes) -> list[Segment]:
    out = []
    for time_us, packet in records(capture):
        ethertype = struct.unpack_from("!H", packet, 12)[0]
        ip_size = 20 if ethertype == 0x0800 else 40
        tcp = packet[14 + ip_size :]
        source, destination, seq, ack, offset, flags = struct.unpack_from("!HHIIBB", tcp)
        payload = tcp[(offset >> 4) * 4 :]
        out.append(Segment(time_us, source, destination, seq, ack, flags, payload))
    return out
