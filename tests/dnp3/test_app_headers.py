"""Object headers: every qualifier read from literal octets, and the encoders' choice of the
smallest qualifier. Octets are laid out by hand from IEEE 1815-2012 4.2.2.7 (group,
variation, qualifier = prefix code << 4 | range code, then the little-endian range field)."""

from __future__ import annotations

import pytest

from gridwire.dnp3.app.headers import (
    HeaderError,
    all_header,
    count_header,
    count_qualifier,
    encode_header,
    index_qualifier,
    indexed_header,
    range_header,
    read_header,
    start_stop_qualifier,
)
from gridwire.dnp3.errors import EncodeError


def _read(hex_octets: str) -> tuple[tuple[int, int, int, int | None, int | None, int | None], int]:
    header, end = read_header(bytes.fromhex(hex_octets), 0)
    fields = (header.group, header.variation, header.qualifier, header.start, header.stop)
    return (*fields, header.count), end


@pytest.mark.parametrize(
    ("octets", "expected", "end"),
    [
        # 0x00: 1-octet start 3, stop 5 -> three objects
        ("1E 01 00 03 05", (30, 1, 0x00, 3, 5, 3), 5),
        # 0x01: 2-octet start 0x0100 (256), stop 0x0102 (258), low octet first
        ("1E 01 01 00 01 02 01", (30, 1, 0x01, 256, 258, 3), 7),
        # 0x02: 4-octet start 1, stop 0x00010000 (65536)
        ("1E 01 02 01 00 00 00 00 00 01 00", (30, 1, 0x02, 1, 65536, 65536), 11),
        # 0x03-0x05: start/stop virtual addresses of 1, 2, 4 octets, read as indexes
        ("01 02 03 07 08", (1, 2, 0x03, 7, 8, 2), 5),
        ("01 02 04 07 00 08 00", (1, 2, 0x04, 7, 8, 2), 7),
        ("01 02 05 07 00 00 00 08 00 00 00", (1, 2, 0x05, 7, 8, 2), 11),
        # 0x06: no range field at all
        ("3C 02 06", (60, 2, 0x06, None, None, None), 3),
        # 0x07/0x08/0x09: counts of 1, 2 and 4 octets (0x0102 = 258, 0x01000000 = 16777216)
        ("32 01 07 01", (50, 1, 0x07, None, None, 1), 4),
        ("02 02 08 02 01", (2, 2, 0x08, None, None, 258), 5),
        ("02 02 09 00 00 00 01", (2, 2, 0x09, None, None, 16777216), 7),
        # 0x17/0x28/0x39: counts of 1, 2, 4 octets (the index prefixes follow, per object)
        ("0C 01 17 02", (12, 1, 0x17, None, None, 2), 4),
        ("0C 01 28 02 00", (12, 1, 0x28, None, None, 2), 5),
        ("0C 01 39 02 00 00 00", (12, 1, 0x39, None, None, 2), 7),
        # 0x5B: free format, 1-octet count (each object then carries a 2-octet size)
        ("46 03 5B 01", (70, 3, 0x5B, None, None, 1), 4),
        # 0x4B and 0x6B: free format with 1- and 4-octet sizes; 0x58: 2-octet count, sizes
        ("46 03 4B 01", (70, 3, 0x4B, None, None, 1), 4),
        ("46 03 6B 01", (70, 3, 0x6B, None, None, 1), 4),
        ("46 03 58 01 00", (70, 3, 0x58, None, None, 1), 5),
    ],
)
def test_every_qualifier_reads_its_range_field(
    octets: str, expected: tuple[int, ...], end: int
) -> None:
    assert _read(octets) == (expected, end)


@pytest.mark.parametrize(
    ("octets", "reason"),
    [
        ("1E 01", "truncated"),
        ("1E 01 00 05", "range field truncated"),
        ("1E 01 01 00 00 05", "range field truncated"),
        ("32 01 08 01", "count field truncated"),
        ("1E 01 00 05 03", "stop 3 is below start 5"),
        ("1E 01 0A 01", "not defined"),  # range code 0xA is reserved
        ("1E 01 10 00 01", "not defined"),  # an index prefix with start-stop
        ("1E 01 1B 01", "not defined"),  # free format needs a size prefix
        ("1E 01 0B 01", "not defined"),
        ("1E 01 80 00 01", "reserved bit 7"),
        ("1E 01 77 01", "prefix code 7"),
    ],
)
def test_unreadable_headers_raise_header_error(octets: str, reason: str) -> None:
    with pytest.raises(HeaderError, match=reason):
        read_header(bytes.fromhex(octets), 0)


def test_header_read_from_an_offset() -> None:
    data = bytes.fromhex("C0 81 00 00 1E 01 00 03 05")
    header, end = read_header(data, 4)
    assert (header.offset, header.start, header.stop, end) == (4, 3, 5, 9)


@pytest.mark.parametrize(
    ("start", "stop", "qualifier"),
    [(0, 0, 0x00), (0, 255, 0x00), (0, 256, 0x01), (255, 65535, 0x01), (0, 65536, 0x02)],
)
def test_start_stop_qualifier_is_the_smallest(start: int, stop: int, qualifier: int) -> None:
    assert start_stop_qualifier(start, stop) == qualifier


@pytest.mark.parametrize(
    ("count", "qualifier"), [(1, 0x07), (255, 0x07), (256, 0x08), (65535, 0x08), (65536, 0x09)]
)
def test_count_qualifier_is_the_smallest(count: int, qualifier: int) -> None:
    assert count_qualifier(count) == qualifier


@pytest.mark.parametrize(
    ("indices", "qualifier"),
    [
        ([0], 0x17),
        ([3, 255], 0x17),
        ([256], 0x28),  # the index needs two octets
        (list(range(256)), 0x28),  # 256 objects: the count needs two octets
        ([65535], 0x28),
        ([65536], 0x39),
    ],
)
def test_index_qualifier_fits_count_and_indexes(indices: list[int], qualifier: int) -> None:
    assert index_qualifier(indices) == qualifier


def test_header_builders_lay_out_octets() -> None:
    assert all_header(60, 2) == bytes.fromhex("3C 02 06")
    assert range_header(30, 0, 0, 9) == bytes.fromhex("1E 00 00 00 09")
    assert range_header(30, 0, 0, 300) == bytes.fromhex("1E 00 01 00 00 2C 01")
    assert count_header(50, 1, 1) == bytes.fromhex("32 01 07 01")
    assert count_header(2, 0, 300) == bytes.fromhex("02 00 08 2C 01")
    # g30v0, 0x17, count 2, indexes 3 and 7 (no object data: a read of two points)
    assert indexed_header(30, 0, [3, 7]) == bytes.fromhex("1E 00 17 02 03 07")
    # forced 0x28: 2-octet count and indexes
    assert indexed_header(30, 0, [3], 0x28) == bytes.fromhex("1E 00 28 01 00 03 00")
    assert encode_header(70, 3, 0x5B, count=1) == bytes.fromhex("46 03 5B 01")
    assert encode_header(1, 2, 0x02, start=1, stop=2) == bytes.fromhex(
        "01 02 02 01 00 00 00 02 00 00 00"
    )


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: encode_header(1, 2, 0x00, start=0, stop=256), "does not fit"),
        (lambda: encode_header(1, 2, 0x00, start=5, stop=1), "below start"),
        (lambda: encode_header(1, 2, 0x00), "needs start and stop"),
        (lambda: encode_header(1, 2, 0x07), "needs a count"),
        (lambda: encode_header(1, 2, 0x07, count=256), "does not fit"),
        (lambda: encode_header(1, 2, 0x0A, count=1), "not defined"),
        (lambda: encode_header(256, 2, 0x06), "group 256"),
        (lambda: index_qualifier([]), "at least one"),
        (lambda: index_qualifier([-1]), "negative"),
        (lambda: count_qualifier(1 << 32), "32 bits"),
        (lambda: indexed_header(1, 0, [300], 0x17), "does not fit"),
    ],
)
def test_header_encoders_refuse_what_does_not_fit(call: object, reason: str) -> None:
    with pytest.raises(EncodeError, match=reason):
        call()  # type: ignore[operator]
