"""LinkReader: frames out of a stream cut anywhere, garbage and damaged frames dropped."""

from __future__ import annotations

from gridwire.dnp3.link import Dropped, LinkFrame, LinkReader, parse_frame
from tests.dnp3.reference_crc import crc_le, reference_frame

# Built by hand with the independent CRC, not by gridwire's encoder:
# READ class 0 from master 1 to outstation 1024 (C4 unconfirmed user data, 6 octets of data).
READ = bytes.fromhex("05 64 0B C4 00 04 01 00 CA 8A C0 C0 01 3C 01 06 FF 50")
# The well-known RESET_LINK_STATES, master 1024 to outstation 1.
RESET = bytes.fromhex("05 64 05 C0 01 00 00 04 E9 21")


# 40 octets of user data: three blocks (16, 16, 8); LENGTH 0x2D = 5 + 40.
LONG_DATA = bytes(range(100, 140))
LONG = reference_frame(bytes.fromhex("05 64 2D 44 01 00 00 04"), LONG_DATA)


def _feed_all(reader: LinkReader, chunks: list[bytes]) -> list[LinkFrame | Dropped]:
    out: list[LinkFrame | Dropped] = []
    for chunk in chunks:
        out += reader.feed(chunk)
    return out


def test_one_frame() -> None:
    (frame,) = LinkReader().feed(READ)
    assert isinstance(frame, LinkFrame)
    assert (frame.destination, frame.source, frame.data) == (1024, 1, READ[10:16])
    assert frame.raw == READ


def test_one_octet_at_a_time_and_many_at_once() -> None:
    stream = READ + RESET + LONG + READ
    reader = LinkReader()
    octet_by_octet = _feed_all(reader, [stream[i : i + 1] for i in range(len(stream))])
    at_once = LinkReader().feed(stream)
    assert octet_by_octet == at_once
    assert [f.raw for f in at_once if isinstance(f, LinkFrame)] == [READ, RESET, LONG, READ]
    assert at_once[2].data == LONG_DATA  # type: ignore[union-attr]
    assert reader.pending == 0


def test_garbage_before_a_start() -> None:
    out = LinkReader().feed(b"\x00\x05\x05\xff" + READ)
    assert out == [Dropped(b"\x00\x05\x05\xff", "garbage before a start"), parse_frame(READ)]


def test_a_final_05_waits_for_the_next_chunk() -> None:
    reader = LinkReader()
    assert reader.feed(b"\x11\x22" + READ[:1]) == [Dropped(b"\x11\x22", "garbage before a start")]
    assert reader.pending == 1
    assert reader.feed(READ[1:]) == [parse_frame(READ)]


def test_bad_header_crc_keeps_a_frame_that_starts_inside_it() -> None:
    # A 05 64 05 prefix, then READ: the ten octets from the first 05 read as a header
    # 05 64 05 05 64 0B C4 00 | 04 01, whose CRC (04 01) is wrong, so the reader drops the
    # three octets before the next 05 64 and finds READ starting inside that false header.
    false_header = b"\x05\x64\x05" + READ[:7]
    assert crc_le(false_header[:8]) != false_header[8:10]
    out = LinkReader().feed(b"\x05\x64\x05" + READ)
    assert out == [Dropped(b"\x05\x64\x05", "bad header CRC"), parse_frame(READ)]


def test_corrupt_header_then_good_frame() -> None:
    bad = bytearray(READ)
    bad[4] ^= 0x01  # destination 1024 -> 1025: header CRC fails
    out = LinkReader().feed(bytes(bad) + RESET)
    assert out == [Dropped(bytes(bad), "bad header CRC"), parse_frame(RESET)]


def test_bad_length_below_5() -> None:
    # LENGTH 4 with a correct header CRC: impossible, dropped, and the scan goes on.
    header = bytes.fromhex("05 64 04 C4 00 04 01 00")
    impossible = header + crc_le(header)
    out = LinkReader().feed(impossible + READ)
    assert out == [Dropped(impossible, "bad length 4"), parse_frame(READ)]


def test_bad_data_crc_drops_the_whole_frame() -> None:
    bad = bytearray(LONG)
    bad[10 + 18 + 3] ^= 0x80  # a data octet of block 2 (after the header and block 1 + CRC)
    out = LinkReader().feed(bytes(bad) + READ)
    assert out == [Dropped(bytes(bad), "bad data CRC at block 2"), parse_frame(READ)]


def test_bad_data_crc_does_not_search_the_blocks_that_passed() -> None:
    # The damaged frame's data holds a whole good frame (RESET) in its first 10 octets. Block
    # 1 passed its CRC: its octets are the frame's own, so RESET is not read out of them; the
    # search for the next frame starts at block 3, the one that failed.
    data = RESET + bytes(30)
    damaged = bytearray(reference_frame(bytes.fromhex("05 64 2D 44 01 00 00 04"), data))
    damaged[-1] ^= 0xFF  # CRC of block 3
    out = LinkReader().feed(bytes(damaged) + READ)
    assert out == [Dropped(bytes(damaged), "bad data CRC at block 3"), parse_frame(READ)]


def test_a_frame_cut_short_loses_nothing_after_it() -> None:
    # LONG's blocks lie at 10..28, 28..46 and 46..56. Cut after 50 octets, its third block is
    # LONG[46:50] and READ's first 6 octets: it fails as soon as they are in, and READ, which
    # starts inside it, comes out at once; nothing waits for the 6 octets LONG still claims.
    cut = LONG[:50]
    assert LinkReader().feed(cut + READ) == [
        Dropped(cut, "bad data CRC at block 3"),
        parse_frame(READ),
    ]
    stream = cut + READ + READ
    octet_by_octet = _feed_all(LinkReader(), [stream[i : i + 1] for i in range(len(stream))])
    assert octet_by_octet == LinkReader().feed(stream)
    assert octet_by_octet == [
        Dropped(cut, "bad data CRC at block 3"),
        parse_frame(READ),
        parse_frame(READ),
    ]


def test_a_frame_cut_inside_its_first_block() -> None:
    # Two data octets, then RESET (10 octets) and READ: block 1 (10..28) holds LONG[10:12],
    # RESET and READ's first 6 octets, fails, and RESET is found inside it.
    cut = LONG[:12]
    assert LinkReader().feed(cut + RESET + READ) == [
        Dropped(cut, "bad data CRC at block 1"),
        parse_frame(RESET),
        parse_frame(READ),
    ]


def test_at_the_end_of_the_stream_a_frame_inside_an_incomplete_one_is_still_read() -> None:
    # Block 1 of the cut frame never fills (2 + 10 of its 18 octets): only the end of the
    # stream says that nothing more is coming. Flushing gives up the cut frame, not RESET.
    reader = LinkReader()
    assert reader.feed(LONG[:12] + RESET) == []
    assert reader.flush() == [
        Dropped(LONG[:12], "incomplete frame at end of stream"),
        parse_frame(RESET),
    ]
    assert reader.pending == 0


def test_pending_is_bounded_by_one_frame() -> None:
    from gridwire.dnp3.link import user_data

    largest = user_data(1024, 1, bytes(250), from_master=True)
    reader = LinkReader()
    assert reader.feed(largest[:-1]) == []
    assert reader.pending == 291
    assert reader.feed(largest[-1:] + largest[:100]) == [parse_frame(largest)]
    assert reader.pending == 100


def test_flush_and_reset() -> None:
    reader = LinkReader()
    reader.feed(READ[:12])
    assert reader.flush() == [Dropped(READ[:12], "incomplete frame at end of stream")]
    assert reader.flush() == []
    reader.feed(READ[:5])
    reader.reset()
    assert reader.pending == 0
    assert reader.feed(READ) == [parse_frame(READ)]


def test_accepts_bytearray_and_memoryview() -> None:
    reader = LinkReader()
    assert reader.feed(bytearray(READ[:7])) == []
    assert reader.feed(memoryview(READ)[7:]) == [parse_frame(READ)]
