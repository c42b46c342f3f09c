"""The outstation's deviations: rules it breaks on purpose, so that a test (or a lab) can see
an evaluation's check fail an outstation that breaks them ("deviation" is the one word for a
rule broken on purpose, by either side; the setting keeps its public name ``misbehave``).
All are off unless named in :attr:`gridwire.outstation.config.OutstationConfig.misbehave`
(``gridwire sim --misbehave NAME``, or ``"misbehave": [NAME, ...]`` in its settings file).

``accept_bad_crc``
    A frame whose header or data CRC is bad is taken as if it were good: every whole frame in
    the octets received (a ``05 64`` followed by as many octets as its LENGTH says) has its
    CRCs made good before the link layer reads it. A frame not whole in those octets (cut
    short, or its length overstated) goes to the link layer as it came.
``forget_unconfirmed_events``
    The events of a solicited response whose confirmation does not come (a new request, the
    confirm timeout, a lost connection) are forgotten instead of being reported again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from gridwire.dnp3.crc import append_crc
from gridwire.dnp3.link import BLOCK_SIZE, HEADER_SIZE, MIN_LENGTH, START, frame_size
from gridwire.errors import ConfigError

ACCEPT_BAD_CRC: Final = "accept_bad_crc"
FORGET_UNCONFIRMED_EVENTS: Final = "forget_unconfirmed_events"
MISBEHAVIOURS: Final = {
    ACCEPT_BAD_CRC: "answer a frame whose header or data CRC is bad",
    FORGET_UNCONFIRMED_EVENTS: "forget the events of a response that was not confirmed",
}


def misbehaviours(names: Iterable[str], known: Mapping[str, str] = MISBEHAVIOURS) -> frozenset[str]:
    """The names given, checked against ``known`` (name: what it does; the outstation's by
    default); ConfigError naming one that is not among them."""
    chosen = frozenset(names)
    unknown = sorted(chosen - set(known))
    if unknown:
        listed = ", ".join(known)
        raise ConfigError(f"misbehave: {', '.join(unknown)} is not one of {listed}")
    return chosen


def mend_crcs(data: bytes) -> bytes:
    """``data`` with the CRCs of every whole frame in it made good (``accept_bad_crc``)."""
    out = bytearray(data)
    position = 0
    while (start := data.find(START, position)) >= 0:
        if len(data) - start < HEADER_SIZE:
            break
        length = data[start + 2]
        size = frame_size(length) if length >= MIN_LENGTH else 0
        if size == 0 or start + size > len(data):
            position = start + 1
            continue
        out[start : start + size] = _mended(data[start : start + size])
        position = start + size
    return bytes(out)


def _mended(frame: bytes) -> bytes:
    """One whole frame with its header CRC and every data block's CRC recomputed."""
    parts = [append_crc(frame[: HEADER_SIZE - 2])]
    body = frame[HEADER_SIZE:]
    for first in range(0, len(body), BLOCK_SIZE + 2):
        block = body[first : first + BLOCK_SIZE + 2][:-2]
        parts.append(append_crc(block))
    return b"".join(parts)
