"""The data link layer: FT3 frames (IEEE 1815-2012 clause 9), sans-IO.

A frame on the wire::

    05 64 LEN CTRL DST(lo hi) SRC(lo hi) CRC(lo hi)      header, CRC over its first 8 octets
    up to 16 user data octets, CRC(lo hi)                 one block, repeated; the last block
    ...                                                   may be shorter

``LEN`` counts CONTROL, DESTINATION, SOURCE and the user data, not the CRCs: 5 + len(data),
so 5..255 and at most 250 user data octets; the largest frame is 10 + 250 + 16 * 2 = 292
octets.

``CONTROL``: DIR 0x80 (1 = sent by the master), PRM 0x40 (1 = primary, the initiating
station), FCB 0x20 (frame count bit, primary frames), FCV 0x10 for a primary frame (FCB is
valid) and DFC 0x10 for a secondary one (data flow control: the secondary's buffers are full),
and the function code in the low four bits.

:func:`encode_frame` builds any frame; :func:`user_data` and the builders below it build the
common ones. :class:`LinkReader` turns a byte stream cut anywhere into :class:`LinkFrame` and
:class:`Dropped` records, in stream order.
"""

from __future__ import annotations

import struct
from contextlib import suppress
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from fastcrc.crc16 import dnp as _crc

from gridwire.dnp3.crc import RESIDUE, Octets
from gridwire.dnp3.errors import DecodeError, EncodeError

START: Final = b"\x05\x64"
HEADER_SIZE: Final = 10
BLOCK_SIZE: Final = 16
MAX_USER_DATA: Final = 250
MAX_FRAME: Final = (
    HEADER_SIZE + MAX_USER_DATA + 2 * ((MAX_USER_DATA + BLOCK_SIZE - 1) // BLOCK_SIZE)
)
MIN_LENGTH: Final = 5

DIR: Final = 0x80
PRM: Final = 0x40
FCB: Final = 0x20
FCV: Final = 0x10
DFC: Final = 0x10
FUNCTION_MASK: Final = 0x0F


class PrimaryFunction(IntEnum):
    """Function codes of frames with PRM = 1 (IEEE 1815-2012 clause 9)."""

    RESET_LINK_STATES = 0
    TEST_LINK_STATES = 2
    CONFIRMED_USER_DATA = 3
    UNCONFIRMED_USER_DATA = 4
    REQUEST_LINK_STATUS = 9


class SecondaryFunction(IntEnum):
    """Function codes of frames with PRM = 0 (IEEE 1815-2012 clause 9)."""

    ACK = 0
    NACK = 1
    LINK_STATUS = 11
    NOT_SUPPORTED = 15


@dataclass(slots=True)
class LinkFrame:
    """One FT3 frame. ``function`` is a :class:`PrimaryFunction` or :class:`SecondaryFunction`
    member (by ``prm``), or the plain code when the standard defines none for it. ``fcv`` is
    the DFC bit of a secondary frame. ``raw`` is the whole frame as received or encoded."""

    dir: bool
    prm: bool
    fcb: bool
    fcv: bool
    function: int
    destination: int
    source: int
    data: bytes
    raw: bytes

    @property
    def dfc(self) -> bool:
        """Data flow control, the name of the 0x10 bit in a secondary frame."""
        return self.fcv

    @property
    def control(self) -> int:
        """The CONTROL octet."""
        return (
            (DIR if self.dir else 0)
            | (PRM if self.prm else 0)
            | (FCB if self.fcb else 0)
            | (FCV if self.fcv else 0)
            | self.function
        )

    @property
    def function_name(self) -> str:
        """The function's name, or ``"FUNCTION_<n>"`` for a code the standard leaves undefined."""
        function = self.function
        if isinstance(function, IntEnum):
            return function.name
        return f"FUNCTION_{function}"


@dataclass(slots=True)
class Dropped:
    """Octets of the stream that were not a good frame, and why."""

    octets: bytes
    reason: str


def _control_fields(control: int) -> tuple[bool, bool, bool, bool, int]:
    prm = bool(control & PRM)
    code = control & FUNCTION_MASK
    function: int = code
    with suppress(ValueError):
        function = PrimaryFunction(code) if prm else SecondaryFunction(code)
    return bool(control & DIR), prm, bool(control & FCB), bool(control & FCV), function


# Every CONTROL octet decoded once, at import: the reader looks its fields up.
_CONTROL: Final = tuple(_control_fields(octet) for octet in range(256))

# Offset 2: LENGTH, CONTROL, DESTINATION, SOURCE (the CRC is checked by residue).
_HEADER: Final = struct.Struct("<BBHH")
_PACK_HEADER: Final = struct.Struct("<2sBBHH")


def frame_size(length: int) -> int:
    """Octets on the wire of a frame whose LENGTH octet is ``length`` (at least 5)."""
    data = length - 5
    return HEADER_SIZE + data + 2 * ((data + BLOCK_SIZE - 1) // BLOCK_SIZE)


def encode_frame(
    function: int,
    destination: int,
    source: int,
    data: Octets = b"",
    *,
    from_master: bool,
    primary: bool = True,
    fcb: bool = False,
    fcv: bool = False,
) -> bytes:
    """Any FT3 frame. ``fcv`` is DFC when ``primary`` is false.

    EncodeError for more than 250 octets of data, an address outside 0..0xFFFF, or a function
    code outside 0..15. Nothing else is checked, so a test can build frames the standard
    discourages (user data on a reset, say)."""
    if len(data) > MAX_USER_DATA:
        raise EncodeError(f"link user data is {len(data)} octets; at most {MAX_USER_DATA} fit")
    if not 0 <= destination <= 0xFFFF:
        raise EncodeError(f"link destination address {destination} is outside 0..65535")
    if not 0 <= source <= 0xFFFF:
        raise EncodeError(f"link source address {source} is outside 0..65535")
    if not 0 <= function <= FUNCTION_MASK:
        raise EncodeError(f"link function code {function} is outside 0..15")
    control = (
        (DIR if from_master else 0)
        | (PRM if primary else 0)
        | (FCB if fcb else 0)
        | (FCV if fcv else 0)
        | function
    )
    header = _PACK_HEADER.pack(START, 5 + len(data), control, destination, source)
    parts = [header, _crc(header).to_bytes(2, "little")]
    octets = bytes(data)
    for offset in range(0, len(octets), BLOCK_SIZE):
        block = octets[offset : offset + BLOCK_SIZE]
        parts.append(block)
        parts.append(_crc(block).to_bytes(2, "little"))
    return b"".join(parts)


def user_data(
    destination: int,
    source: int,
    data: Octets,
    *,
    from_master: bool,
    confirmed: bool = False,
    fcb: bool = False,
) -> bytes:
    """A frame carrying a transport segment: UNCONFIRMED_USER_DATA (FCV 0, FCB 0), or
    CONFIRMED_USER_DATA (FCV 1, FCB as given) when ``confirmed``.

    EncodeError also for empty data: a user data frame carries at least the transport header.
    """
    if not data:
        raise EncodeError("a user data frame needs at least one octet of data")
    if confirmed:
        function = PrimaryFunction.CONFIRMED_USER_DATA
        return encode_frame(
            function, destination, source, data, from_master=from_master, fcb=fcb, fcv=True
        )
    function = PrimaryFunction.UNCONFIRMED_USER_DATA
    return encode_frame(function, destination, source, data, from_master=from_master)


def reset_link_states(destination: int, source: int, *, from_master: bool) -> bytes:
    """RESET_LINK_STATES (FCV 0)."""
    return encode_frame(
        PrimaryFunction.RESET_LINK_STATES, destination, source, from_master=from_master
    )


def test_link_states(destination: int, source: int, *, from_master: bool, fcb: bool) -> bytes:
    """TEST_LINK_STATES (FCV 1, FCB as given)."""
    return encode_frame(
        PrimaryFunction.TEST_LINK_STATES,
        destination,
        source,
        from_master=from_master,
        fcb=fcb,
        fcv=True,
    )


# pytest would otherwise collect the builder above as a test when a test module imports it.
test_link_states.__test__ = False  # type: ignore[attr-defined]


def request_link_status(destination: int, source: int, *, from_master: bool) -> bytes:
    """REQUEST_LINK_STATUS (FCV 0)."""
    return encode_frame(
        PrimaryFunction.REQUEST_LINK_STATUS, destination, source, from_master=from_master
    )


def _secondary(
    function: SecondaryFunction, destination: int, source: int, from_master: bool, dfc: bool
) -> bytes:
    return encode_frame(
        function, destination, source, from_master=from_master, primary=False, fcv=dfc
    )


def ack(destination: int, source: int, *, from_master: bool, dfc: bool = False) -> bytes:
    """ACK: the answer to RESET_LINK_STATES, TEST_LINK_STATES and CONFIRMED_USER_DATA."""
    return _secondary(SecondaryFunction.ACK, destination, source, from_master, dfc)


def nack(destination: int, source: int, *, from_master: bool, dfc: bool = False) -> bytes:
    """NACK: a confirmed frame that the secondary could not take."""
    return _secondary(SecondaryFunction.NACK, destination, source, from_master, dfc)


def link_status_reply(
    destination: int, source: int, *, from_master: bool, dfc: bool = False
) -> bytes:
    """LINK_STATUS: the answer to REQUEST_LINK_STATUS."""
    return _secondary(SecondaryFunction.LINK_STATUS, destination, source, from_master, dfc)


def not_supported(destination: int, source: int, *, from_master: bool, dfc: bool = False) -> bytes:
    """NOT_SUPPORTED: the answer to a primary function the secondary does not implement."""
    return _secondary(SecondaryFunction.NOT_SUPPORTED, destination, source, from_master, dfc)


_ACKED: Final = frozenset(
    {
        PrimaryFunction.RESET_LINK_STATES,
        PrimaryFunction.TEST_LINK_STATES,
        PrimaryFunction.CONFIRMED_USER_DATA,
    }
)


def reply_to(frame: LinkFrame) -> bytes | None:
    """The secondary frame that answers ``frame``, from the station it was addressed to:
    LINK_STATUS for REQUEST_LINK_STATUS; ACK for RESET_LINK_STATES, TEST_LINK_STATES and
    CONFIRMED_USER_DATA; NOT_SUPPORTED for a primary code the standard does not define;
    None for UNCONFIRMED_USER_DATA and for secondary frames, which take no answer.

    Stateless: it does not track the frame count bit, so a TEST_LINK_STATES or a confirmed
    frame repeated with the same FCB is acknowledged again rather than answered with the
    previous response. Over TCP, where frames are not lost, the two agree."""
    if not frame.prm:
        return None
    destination, source, from_master = frame.source, frame.destination, not frame.dir
    function = frame.function
    if function == PrimaryFunction.REQUEST_LINK_STATUS:
        return link_status_reply(destination, source, from_master=from_master)
    if function in _ACKED:
        return ack(destination, source, from_master=from_master)
    if function == PrimaryFunction.UNCONFIRMED_USER_DATA:
        return None
    return not_supported(destination, source, from_master=from_master)


def parse_frame(raw: Octets) -> LinkFrame:
    """Exactly one whole, good frame; DecodeError saying what is wrong otherwise."""
    octets = bytes(raw)
    if len(octets) < HEADER_SIZE:
        raise DecodeError(f"a link frame has at least {HEADER_SIZE} octets, not {len(octets)}")
    if octets[:2] != START:
        raise DecodeError(f"a link frame starts 05 64, not {octets[:2].hex(' ')}")
    outcome = _read_frame(octets, 0)
    if outcome is None:
        size = frame_size(octets[2])
        raise DecodeError(f"link frame LENGTH {octets[2]} needs {size} octets, not {len(octets)}")
    if isinstance(outcome, tuple):
        raise DecodeError(f"link frame: {outcome[0]}")
    if len(outcome.raw) != len(octets):
        raise DecodeError(
            f"link frame LENGTH {octets[2]} makes {len(outcome.raw)} octets, "
            f"but {len(octets)} were given"
        )
    return outcome


_Layout = tuple[int, tuple[slice, ...]]


def _block_layout(length: int) -> _Layout:
    """For a frame of LENGTH ``length``: its size on the wire, and each data block's slice
    (with its CRC) relative to the frame's first octet."""
    end = frame_size(length)
    starts = range(HEADER_SIZE, end, BLOCK_SIZE + 2)
    return end, tuple(slice(a, min(a + BLOCK_SIZE + 2, end)) for a in starts)


# Computed once for every LENGTH (index 0..4 unused), so the reader only looks them up.
_LAYOUT: Final = tuple(_block_layout(max(length, MIN_LENGTH)) for length in range(256))


def _user_data(raw: bytes) -> bytes:
    """The user data of a checked frame: its blocks without their CRCs.

    Past the header and without the last CRC, the CRC of block k (0-based, not the last)
    sits at 16 + 18k and 17 + 18k. Deleting every 18th octet from 16 takes the first octet
    of each; the second octets have then moved to 16 + 17k: every 17th from 16. Two C-level
    deletions instead of a slice and a join per block."""
    user = bytearray(raw[HEADER_SIZE:-2])
    del user[BLOCK_SIZE :: BLOCK_SIZE + 2]
    del user[BLOCK_SIZE :: BLOCK_SIZE + 1]
    return bytes(user)


def _read_frame(data: bytes, start: int) -> LinkFrame | tuple[str, int] | None:
    """The frame whose 05 64 is at ``start`` (``data`` holds at least its header).

    None when the header is good but the frame runs past the end of ``data`` and every data
    block of it already there is good. A fault is (reason, resume): where to look for the
    next ``05 64``. After a bad header that is the octet after this 05. After a bad data
    block it is that block's first octet: the blocks before it are this frame's own
    octets, checked, but a frame cut short (the rest never sent) is followed at once by the
    next frame, which then starts inside the first block that fails."""
    # CRCs are taken of bytes slices: fastcrc reads a 16-octet bytes object in about half
    # the time it takes to read a memoryview slice of one.
    if _crc(data[start : start + HEADER_SIZE]) != RESIDUE:
        return ("bad header CRC", start + 1)
    length, control, destination, source = _HEADER.unpack_from(data, start + 2)
    if length < MIN_LENGTH:
        return (f"bad length {length}", start + 1)
    size, checked = _LAYOUT[length]
    end = start + size
    if end > len(data):
        return _first_bad_block(data, start, checked)
    raw = data[start:end]
    if length == MIN_LENGTH:
        user = b""
    else:
        # A plain loop: subscripting in the loop is quicker than map(raw.__getitem__, ...).
        for block in checked:
            if _crc(raw[block]) != RESIDUE:
                return _first_bad_block(data, start, checked)  # finds it again, to name it
        user = _user_data(raw)
    dir_, prm, fcb, fcv, function = _CONTROL[control]
    return LinkFrame(dir_, prm, fcb, fcv, function, destination, source, user, raw)


def _first_bad_block(data: bytes, start: int, checked: tuple[slice, ...]) -> tuple[str, int] | None:
    """Of a frame not yet complete, the first of its whole data blocks already in ``data``
    that fails its CRC, as a fault; None when all of them are good (wait for the rest)."""
    for number, block in enumerate(checked, 1):
        first, stop = start + block.start, start + block.stop
        if stop > len(data):
            return None
        if _crc(data[first:stop]) != RESIDUE:
            return (f"bad data CRC at block {number}", first)
    return None


class LinkReader:
    """Frames out of a byte stream cut into chunks anywhere.

    :meth:`feed` returns the frames and the dropped octets that the chunk completes, in
    stream order; every octet fed ends up in exactly one frame's ``raw`` or one
    :class:`Dropped`, or is still pending (:attr:`pending`; :meth:`flush` gives it up).

    Rules: octets before a ``05 64`` are garbage. A header with a bad CRC or a LENGTH below 5
    is dropped together with whatever follows it up to the next ``05 64`` found after its
    first octet, so a good frame starting inside it is still found. A frame with a good
    header is dropped as soon as one of its data blocks fails its CRC (even before the rest
    of it has come), up to the next ``05 64`` found from that block's first octet: a frame
    cut short loses neither the frame that follows it nor the reader's time waiting for
    octets that will never come. Blocks that passed are the frame's own and are not
    searched.

    Memory: between calls at most one frame less an octet is pending (291 octets).
    """

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending = b""

    @property
    def pending(self) -> int:
        """Octets held back because they may be the start of a frame not yet complete."""
        return len(self._pending)

    def reset(self) -> None:
        """Forget pending octets (after a reconnection, say)."""
        self._pending = b""

    def flush(self) -> list[LinkFrame | Dropped]:
        """The stream ended: give up the frame left incomplete, and read on after it, in
        case a good frame lies inside what it claimed (one whose last block never came)."""
        out: list[LinkFrame | Dropped] = []
        while self._pending:
            pending, self._pending = self._pending, b""
            # Pending octets start at a 05: the start of the frame that stayed incomplete.
            after = pending.find(START, 1)
            if after < 0:
                out.append(Dropped(pending, "incomplete frame at end of stream"))
                break
            out.append(Dropped(pending[:after], "incomplete frame at end of stream"))
            out += self.feed(pending[after:])
        return out

    def feed(self, chunk: Octets) -> list[LinkFrame | Dropped]:
        """The frames and dropped octets this chunk completes, in stream order."""
        data = self._pending + bytes(chunk) if self._pending else bytes(chunk)
        out: list[LinkFrame | Dropped] = []
        size = len(data)
        position = 0
        while position < size:
            start = data.find(START, position)
            if start < 0:
                # No start in sight; a final 05 may be the first half of one.
                keep = size - 1 if data[size - 1] == 0x05 else size
                if keep > position:
                    out.append(Dropped(data[position:keep], "garbage before a start"))
                position = keep
                break
            if start > position:
                out.append(Dropped(data[position:start], "garbage before a start"))
                position = start
            if size - start < HEADER_SIZE:
                break
            outcome = _read_frame(data, start)
            if outcome is None:
                break
            if isinstance(outcome, LinkFrame):
                out.append(outcome)
                position = start + len(outcome.raw)
                continue
            # A fault: rescan from where it says; drop up to the start found there.
            reason, resume = outcome
            end = data.find(START, resume)
            if end < 0:
                end = size - 1 if data[size - 1] == 0x05 else size
            out.append(Dropped(data[start:end], reason))
            position = end
        self._pending = data[position:]
        return out
