"""The transport function (IEEE 1815-2012 clause 8), sans-IO.

An application fragment travels as segments (TPDUs), each in the user data of one link
frame: one header octet, then up to 249 octets of the fragment (250 link user data octets
less the header). Header (clause 8.2.1): FIN 0x80 (last segment of the fragment), FIR 0x40
(first segment), SEQUENCE in the low six bits, one more (modulo 64) in each segment after
the first; the first may carry any value.

:func:`segment` cuts a fragment; :class:`Reassembler` joins segments as they arrive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gridwire.dnp3.crc import Octets
from gridwire.dnp3.errors import EncodeError
from gridwire.errors import ConfigError

FIN: Final = 0x80
FIR: Final = 0x40
SEQ_MASK: Final = 0x3F
SEQ_MODULUS: Final = 64
MAX_PAYLOAD: Final = 249
DEFAULT_MAX_FRAGMENT: Final = 2048


def header(*, fir: bool, fin: bool, seq: int) -> int:
    """The transport header octet. EncodeError for a sequence number outside 0..63."""
    if not 0 <= seq < SEQ_MODULUS:
        raise EncodeError(f"transport sequence number {seq} is outside 0..63")
    return (FIN if fin else 0) | (FIR if fir else 0) | seq


def segment(fragment: Octets, seq: int) -> tuple[list[bytes], int]:
    """The TPDUs (header + payload) that carry ``fragment``, the first numbered ``seq``, and
    the sequence number of the segment after the last (modulo 64).

    An empty fragment is one segment with FIR and FIN and no payload. EncodeError for a
    sequence number outside 0..63."""
    if not 0 <= seq < SEQ_MODULUS:
        raise EncodeError(f"transport sequence number {seq} is outside 0..63")
    data = bytes(fragment)
    size = len(data)
    if size <= MAX_PAYLOAD:
        return [bytes((FIR | FIN | seq,)) + data], (seq + 1) & SEQ_MASK
    tpdus = []
    for offset in range(0, size, MAX_PAYLOAD):
        first = FIR if offset == 0 else 0
        last = FIN if offset + MAX_PAYLOAD >= size else 0
        tpdus.append(bytes((first | last | seq,)) + data[offset : offset + MAX_PAYLOAD])
        seq = (seq + 1) & SEQ_MASK
    return tpdus, seq


@dataclass(slots=True)
class Discarded:
    """What a segment made the reassembler throw away: why, and how many fragment octets
    (payload octets of segments, headers not counted)."""

    reason: str
    octets: int


class Reassembler:
    """Segments in, whole fragments out, by the reception rules of IEEE 1815-2012 clause
    8.2 and its Figure 8-4 (Reception state diagram):

    - a segment with FIR begins a new fragment, whatever its sequence number, and discards
      the one in progress (clause 8.2.1, FIR);
    - a segment without FIR when no fragment is in progress is discarded;
    - a segment without FIR whose sequence number is not one more (modulo 64) than the
      previous segment's discards itself and the fragment in progress (clause 8.2.1.3);
    - except that a segment identical, header and payload, to the previous one is a repeat
      and is discarded alone, leaving the fragment in progress as it was (Figure 8-4);
    - FIN completes the fragment, which :meth:`feed` returns.

    Two rules of this implementation: an empty TPDU (not even a header) is discarded and
    changes nothing; a fragment that would grow beyond ``max_fragment`` octets is refused,
    and so is every later segment of it, up to its FIN or the next FIR.

    :meth:`feed` returns one result per segment. When a FIR|FIN segment both completes a
    fragment and discards one in progress, it returns the fragment; :attr:`last_discard`
    holds the discard of the latest segment in every case.
    """

    __slots__ = (
        "_expected",
        "_last",
        "_parts",
        "_refusing",
        "_size",
        "last_discard",
        "max_fragment",
    )

    def __init__(self, max_fragment: int = DEFAULT_MAX_FRAGMENT) -> None:
        if max_fragment < 0:
            raise ConfigError(f"max_fragment must be 0 or more, not {max_fragment}")
        self.max_fragment = max_fragment
        self.last_discard: Discarded | None = None
        self._parts: list[bytes] = []
        self._size = 0
        self._expected = -1  # sequence number of the next segment; -1: no fragment in progress
        self._last = b""  # the previous segment of the fragment in progress, for repeats
        self._refusing = False

    @property
    def in_progress(self) -> int:
        """Octets of the fragment being assembled (0 when none is)."""
        return self._size

    def reset(self) -> None:
        """Forget the fragment in progress (after a reconnection, say)."""
        self._clear()
        self._refusing = False
        self.last_discard = None

    def _clear(self) -> None:
        self._parts = []
        self._size = 0
        self._expected = -1
        self._last = b""

    def _discard(self, reason: str, octets: int, *, clear: bool = True) -> Discarded:
        if clear:
            self._clear()
        discarded = Discarded(reason, octets)
        self.last_discard = discarded
        return discarded

    def feed(self, tpdu: Octets) -> bytes | Discarded | None:
        """A complete fragment, a record of what this segment made it throw away, or None
        (the segment was kept and the fragment is not complete yet)."""
        self.last_discard = None
        if not tpdu:
            return self._discard("empty TPDU", 0, clear=False)
        octets = bytes(tpdu)
        first = octets[0]
        seq = first & SEQ_MASK
        payload = len(octets) - 1
        if first & FIR:
            superseded = self._size if self._expected >= 0 else -1
            self._clear()
            self._refusing = False
            if payload > self.max_fragment:
                self._refusing = not first & FIN
                return self._refused(payload, superseded)
            if superseded >= 0:
                self.last_discard = Discarded("FIR while a fragment was in progress", superseded)
            if first & FIN:
                return octets[1:]
            self._parts.append(octets[1:])
            self._size = payload
            self._expected = (seq + 1) & SEQ_MASK
            self._last = octets
            return self.last_discard
        if self._refusing:
            if first & FIN:
                self._refusing = False
            return self._discard("rest of a refused fragment", payload)
        if self._expected < 0:
            return self._discard("no fragment in progress", payload)
        if seq != self._expected:
            if octets == self._last:
                return self._discard("repeated segment", payload, clear=False)
            expected = self._expected
            return self._discard(
                f"out of sequence: expected {expected}, got {seq}", self._size + payload
            )
        size = self._size + payload
        if size > self.max_fragment:
            self._refusing = not first & FIN
            return self._refused(size, -1)
        self._parts.append(octets[1:])
        if first & FIN:
            fragment = b"".join(self._parts)
            self._clear()
            return fragment
        self._size = size
        self._expected = (seq + 1) & SEQ_MASK
        self._last = octets
        return None

    def _refused(self, size: int, superseded: int) -> Discarded:
        """A fragment of ``size`` octets so far is past ``max_fragment``: refuse it, and count
        the ``superseded`` octets of a fragment a FIR cut short (-1: none)."""
        reason = f"fragment exceeds {self.max_fragment} octets"
        if superseded >= 0:
            reason += f"; FIR while a fragment was in progress ({superseded} octets)"
            size += superseded
        return self._discard(reason, size)
