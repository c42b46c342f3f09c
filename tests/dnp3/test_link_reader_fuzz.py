"""LinkReader under hypothesis: arbitrary octets, and valid streams with garbage and damage
spliced in, cut into arbitrary chunks."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gridwire.dnp3.link import Dropped, LinkFrame, LinkReader, encode_frame
from tests.dnp3.reference_crc import crc_le, reference_frame

MAX_PENDING = 291


def _cut(stream: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
    return [stream[a:b] for a, b in pairwise(points)]


def _run(stream: bytes, cuts: list[int]) -> tuple[list[LinkFrame | Dropped], LinkReader]:
    reader = LinkReader()
    out: list[LinkFrame | Dropped] = []
    for chunk in _cut(stream, cuts):
        # The reader reports damage as Dropped records: it raises nothing at all, which is
        # stricter than the rule (nothing but DnpError).
        out += reader.feed(chunk)
        assert reader.pending <= MAX_PENDING
    return out, reader


@settings(max_examples=300)
@given(st.binary(max_size=2000), st.lists(st.integers(min_value=0), max_size=40))
def test_arbitrary_octets(stream: bytes, cuts: list[int]) -> None:
    out, reader = _run(stream, cuts)
    # Every octet is in exactly one frame or one Dropped, in order, or still pending.
    accounted = b"".join(item.raw if isinstance(item, LinkFrame) else item.octets for item in out)
    assert accounted + stream[len(stream) - reader.pending :] == stream
    for item in out:
        if isinstance(item, LinkFrame):
            # Whatever came out as a frame is one: its fields encode back to its octets.
            assert item.raw == encode_frame(
                item.function,
                item.destination,
                item.source,
                item.data,
                from_master=item.dir,
                primary=item.prm,
                fcb=item.fcb,
                fcv=item.fcv,
            )
        else:
            assert item.octets and item.reason


_frames = st.builds(
    lambda control, destination, source, data: reference_frame(
        b"\x05\x64"
        + bytes([5 + len(data), control])
        + destination.to_bytes(2, "little")
        + source.to_bytes(2, "little"),
        data,
    ),
    st.integers(0, 255),
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFFFF),
    st.binary(max_size=250),
)
# Garbage favouring the octets that matter: 05 and 64.
_garbage = st.binary(max_size=40) | st.lists(
    st.sampled_from([0x05, 0x64, 0x00, 0xFF]), max_size=12
).map(bytes)


@st.composite
def _streams(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, bytes, bool]]]:
    """A stream of frames with garbage between them, some damaged by one flipped bit and
    some cut short (the rest never sent): the stream, and each frame's (offset, octets as
    sent, intact)."""
    stream = b""
    placed = []
    for frame in draw(st.lists(_frames, min_size=1, max_size=6)):
        stream += draw(_garbage)
        octets = frame
        damage = draw(st.integers(0, 7))
        if damage == 0:
            bit = draw(st.integers(0, len(frame) * 8 - 1))
            damaged = bytearray(frame)
            damaged[bit // 8] ^= 1 << (bit % 8)
            octets = bytes(damaged)
        elif damage == 1:
            octets = frame[: draw(st.integers(2, len(frame) - 1))]
        placed.append((len(stream), octets, octets == frame))
        stream += octets
    stream += draw(_garbage)
    return stream, placed


def _good_headers(stream: bytes) -> set[int]:
    return {
        p
        for p in range(len(stream) - 9)
        if stream[p : p + 2] == b"\x05\x64" and crc_le(stream[p : p + 8]) == stream[p + 8 : p + 10]
    }


def _completes(stream: bytes, offset: int) -> bool:
    """Whether the frame whose good header is at ``offset`` finds in the stream every data
    block its LENGTH claims, each with a good CRC (by the reference CRC)."""
    remaining = stream[offset + 2] - 5
    position = offset + 10
    while remaining > 0:
        size = min(remaining, 16)
        block = stream[position : position + size + 2]
        if len(block) < size + 2 or crc_le(block[:size]) != block[size:]:
            return False
        remaining -= size
        position += size + 2
    return True


@settings(max_examples=300)
@given(_streams(), st.lists(st.integers(min_value=0), max_size=40))
def test_every_intact_frame_is_recovered(
    case: tuple[bytes, list[tuple[int, bytes, bool]]], cuts: list[int]
) -> None:
    stream, placed = case
    # A good header anywhere but at the start of a frame we placed (garbage or damage that
    # happens to carry a valid CRC) would be a frame by the standard's own rules: such draws
    # are set aside. A damaged frame keeps a good header when the flipped bit is in its data.
    assume(_good_headers(stream) <= {offset for offset, _, _ in placed})
    # Likewise a frame cut short whose missing blocks the octets after it fill with good CRCs
    # is whole by the standard's rules. Not rare: cut where a last block of 8 data octets
    # begins, a frame of 8 data octets is completed by any 10-octet frame after it, whose
    # header is 8 octets and their CRC.
    assume(
        not any(
            _completes(stream, offset)
            for offset, octets, intact in placed
            if not intact and len(octets) >= 10 and offset in _good_headers(stream)
        )
    )
    out, reader = _run(stream, cuts)
    accounted = b"".join(item.raw if isinstance(item, LinkFrame) else item.octets for item in out)
    assert accounted + stream[len(stream) - reader.pending :] == stream
    # At the end of the stream the reader gives up what stayed incomplete, and only that.
    out += reader.flush()
    assert reader.pending == 0
    received = [item.raw for item in out if isinstance(item, LinkFrame)]
    assert received == [octets for _, octets, intact in placed if intact]
    accounted = b"".join(item.raw if isinstance(item, LinkFrame) else item.octets for item in out)
    assert accounted == stream
    # Every damaged or cut frame shows up as dropped octets.
    dropped = b"".join(item.octets for item in out if isinstance(item, Dropped))
    for _, octets, intact in placed:
        if not intact:
            assert octets[:2] in dropped
