"""The classic pcap file format (what ``tcpdump -w`` writes and Wireshark reads), sans-IO.

A file is a 24-octet global header followed by records, each a 16-octet record header
(seconds, microseconds, captured length, original length) and the packet. Everything is
written little-endian with the microsecond magic number 0xA1B2C3D4, so the file starts
``D4 C3 B2 A1 02 00 04 00``.
"""

from __future__ import annotations

import math
import struct
from typing import Final

from gridwire.errors import GridwireError

MAGIC: Final = 0xA1B2C3D4
VERSION_MAJOR: Final = 2
VERSION_MINOR: Final = 4
SNAPLEN: Final = 65535
LINKTYPE_ETHERNET: Final = 1

_GLOBAL: Final = struct.Struct("<IHHiIII")
_RECORD: Final = struct.Struct("<IIII")

GLOBAL_HEADER_SIZE: Final = _GLOBAL.size
RECORD_HEADER_SIZE: Final = _RECORD.size

Timestamp = int | float
"""A capture time: an ``int`` counts microseconds since the epoch, a ``float`` seconds."""


class CaptureError(GridwireError):
    """Something that cannot be put in a capture: a negative time, an address that is not
    an IP literal, a packet longer than the snapshot length."""


def global_header(linktype: int = LINKTYPE_ETHERNET, snaplen: int = SNAPLEN) -> bytes:
    """The 24-octet header a pcap file starts with."""
    return _GLOBAL.pack(MAGIC, VERSION_MAJOR, VERSION_MINOR, 0, 0, snaplen, linktype)


def microseconds(timestamp: Timestamp) -> int:
    """``timestamp`` in whole microseconds since the epoch (a float of seconds is rounded).

    CaptureError for a negative time or one past the year 2106 (pcap's 32-bit seconds)."""
    if isinstance(timestamp, bool) or not isinstance(timestamp, int | float):
        raise CaptureError("a capture time is an int of microseconds or a float of seconds")
    if isinstance(timestamp, float) and not math.isfinite(timestamp):
        raise CaptureError(f"capture time {timestamp!r} is not a time")
    micros = timestamp if isinstance(timestamp, int) else round(timestamp * 1_000_000)
    if not 0 <= micros < (1 << 32) * 1_000_000:
        raise CaptureError(f"capture time {timestamp!r} is outside what pcap can hold")
    return micros


def record(packet: bytes, timestamp: Timestamp) -> bytes:
    """One record: its header (time, lengths) and the packet."""
    if len(packet) > SNAPLEN:
        raise CaptureError(f"a packet of {len(packet)} octets is longer than {SNAPLEN}")
    seconds, micros = divmod(microseconds(timestamp), 1_000_000)
    return _RECORD.pack(seconds, micros, len(packet), len(packet)) + packet
