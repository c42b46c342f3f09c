"""Quality flags by name for every point type, and IEEE floats (NaN payloads, infinities)
that survive decoding and encoding bit for bit.

Flag bits (IEEE 1815-2012 Annex A flag octets, and Wireshark's dnp3.al.biq/boq/ctrq/aiq
fields): bits 0-4 ONLINE, RESTART, COMM_LOST, REMOTE_FORCED, LOCAL_FORCED for all; then
binary input CHATTER_FILTER (5), RESERVED (6), state (7); double-bit CHATTER_FILTER (5),
state (6-7); binary output RESERVED (5, 6), state (7); counter ROLLOVER (5), DISCONTINUITY
(6), RESERVED (7); analog OVER_RANGE (5), REFERENCE_ERR (6), RESERVED (7).
"""

from __future__ import annotations

import math
import struct

import pytest

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.flags import flag_names, flags_octet
from gridwire.dnp3.objects.records import AnalogCommand

COMMON = ["ONLINE", "RESTART", "COMM_LOST", "REMOTE_FORCED", "LOCAL_FORCED"]


def _flags(body: str) -> list[list[str] | None]:
    return [o.flags for o in parse_response(bytes.fromhex("C0 81 00 00 " + body)).objects]


@pytest.mark.parametrize(
    ("header", "names"),
    [
        # g1v2 0..7, one bit set in each object (bit 7 is the state, not a flag)
        ("01 02 00 00 07", [*COMMON, "CHATTER_FILTER", "RESERVED", None]),
        ("03 02 00 00 07", [*COMMON, "CHATTER_FILTER", None, None]),  # double-bit: 6-7 state
        ("0A 02 00 00 07", [*COMMON, "RESERVED", "RESERVED", None]),  # binary output status
        ("14 01 00 00 07", [*COMMON, "ROLLOVER", "DISCONTINUITY", "RESERVED"]),  # counter
        ("15 01 00 00 07", [*COMMON, "ROLLOVER", "DISCONTINUITY", "RESERVED"]),  # frozen
        ("1E 01 00 00 07", [*COMMON, "OVER_RANGE", "REFERENCE_ERR", "RESERVED"]),  # analog
        ("1F 01 00 00 07", [*COMMON, "OVER_RANGE", "REFERENCE_ERR", "RESERVED"]),
        ("28 01 00 00 07", [*COMMON, "OVER_RANGE", "REFERENCE_ERR", "RESERVED"]),  # ao status
    ],
)
def test_each_flag_bit_by_name(header: str, names: list[str | None]) -> None:
    group = int(header[:2], 16)
    value_octets = {1: "", 3: "", 10: "", 20: " 00 00 00 00", 21: " 00 00 00 00"}
    tail = value_octets.get(group, " 00 00 00 00")
    body = header + "".join(f" {1 << bit:02X}" + tail for bit in range(8))
    expected = [[name] if name else [] for name in names]
    assert _flags(body) == expected


def test_binary_state_bit_is_the_value_not_a_flag() -> None:
    objects = parse_response(bytes.fromhex("C0 81 00 00 01 02 00 00 01 80 FF")).objects
    assert [(o.value, o.flags) for o in objects] == [
        (True, []),
        (True, [*COMMON, "CHATTER_FILTER", "RESERVED"]),
    ]


def test_flag_names_are_cached_per_octet() -> None:
    response = parse_response(bytes.fromhex("C0 81 00 00 1E 02 00 00 01 01 00 00 01 00 00"))
    first, second = response.objects
    # the same octet gives the very same list: names are never computed per object
    assert first.flags is second.flags is flag_names("ai")[0x01]  # type: ignore[union-attr]
    assert len(flag_names("bi")) == 256


def test_flags_octet_is_the_inverse_of_the_names() -> None:
    assert flags_octet("ai", ["ONLINE", "over_range"]) == 0x21
    assert flags_octet("counter", ["DISCONTINUITY"]) == 0x40
    with pytest.raises(EncodeError, match="not a flag of a bi point"):
        flags_octet("bi", ["ROLLOVER"])


# IEEE singles and doubles ---------------------------------------------------------------

SINGLES = [
    0x7F800001,  # signalling NaN, payload 1 (struct alone would quiet it to 0x7FC00001)
    0x7FA00000,  # signalling NaN, payload in the high bits
    0xFFBFFFFF,  # negative signalling NaN, full payload
    0x7FC12345,  # quiet NaN with payload
    0xFFC00000,  # negative quiet NaN
    0x7F800000,  # +infinity
    0xFF800000,  # -infinity
    0x00000001,  # smallest subnormal
    0x80000000,  # -0.0
]
DOUBLES = [
    0x7FF0000000000001,  # signalling NaN
    0xFFF8000000000BAD,  # negative quiet NaN with payload
    0x7FF0000000000000,  # +infinity
    0xFFF0000000000000,  # -infinity
    0x8000000000000000,  # -0.0
]


@pytest.mark.parametrize("bits", SINGLES, ids=[f"{b:08X}" for b in SINGLES])
@pytest.mark.parametrize(
    ("group", "variation", "prefix"), [(30, 5, "00 00 00 01"), (32, 7, "17 01 00 01")]
)
def test_single_survives_decode_and_encode(
    group: int, variation: int, prefix: str, bits: int
) -> None:
    single = struct.pack("<I", bits)
    timed = bytes.fromhex("00 68 E5 CF 8B 01") if variation == 7 else b""
    body = bytes((group, variation)) + bytes.fromhex(prefix) + single + timed
    (obj,) = parse_response(bytes.fromhex("C0 81 00 00") + body).objects
    assert isinstance(obj.value, float)
    assert math.isnan(obj.value) == ((bits & 0x7F800000) == 0x7F800000 and bool(bits & 0x7FFFFF))
    again = encode_objects(group, variation, [Item(0, obj.value, 0x01, obj.time_ms)])
    assert again == body  # the same octets, so the same bit pattern


@pytest.mark.parametrize("bits", DOUBLES, ids=[f"{b:016X}" for b in DOUBLES])
def test_double_survives_decode_and_encode(bits: int) -> None:
    body = bytes.fromhex("1E 06 00 00 00 01") + struct.pack("<Q", bits)
    (obj,) = parse_response(bytes.fromhex("C0 81 00 00") + body).objects
    assert struct.pack("<d", obj.value) == struct.pack("<Q", bits)  # type: ignore[arg-type]
    assert encode_objects(30, 6, [Item(0, obj.value)]) == body


def test_nan_inside_a_composite_value() -> None:
    # g41v3 index 2: single 0x7F800001 (signalling NaN), status 0
    body = bytes.fromhex("29 03 17 01 02 01 00 80 7F 00")
    (obj,) = parse_response(bytes.fromhex("C0 81 00 00") + body).objects
    assert isinstance(obj.value, AnalogCommand) and math.isnan(obj.value.value)
    assert encode_objects(41, 3, [Item(2, obj.value)]) == body


def test_a_double_too_large_for_a_single_is_refused() -> None:
    with pytest.raises(EncodeError, match="does not fit an IEEE single"):
        encode_objects(30, 5, [Item(0, 1e300)])
