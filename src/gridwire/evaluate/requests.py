"""Counting the requests a check sent, from the frames of the trace.

A request is a fragment the master began: a sent frame of user data (link function 3 or 4,
PRM set) whose transport header has FIR, with an application function other than CONFIRM.
Frames a deviation broke still carry those octets, so a probe sent with a bad CRC counts;
an orphan segment or the continuation of an endless series (no FIR) does not.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from gridwire.master.records import FrameRecord

_START: Final = b"\x05\x64"
_PRM: Final = 0x40
_USER_DATA: Final = frozenset({3, 4})
_FIR: Final = 0x40
_CONFIRM: Final = 0


def begins_request(octets: bytes) -> bool:
    """Whether a frame the master sent begins a request (see the module's notes)."""
    if len(octets) < 13 or octets[:2] != _START:
        return False
    control = octets[3]
    if not control & _PRM or control & 0x0F not in _USER_DATA:
        return False
    return bool(octets[10] & _FIR) and octets[12] != _CONFIRM


def requests_sent(frames: Iterable[FrameRecord], last: int) -> int:
    """How many requests the sent frames up to id ``last`` began."""
    return sum(
        1
        for frame in frames
        if frame.id <= last
        and frame.direction == "sent"
        and begins_request(bytes.fromhex(frame.hex))
    )
