"""The scan answer's fast writer (msgspec, D150 and D206) against orjson's octets, the old
path, for the objects of every variation of the object table as the decoder makes them from
octets; and two answers written out by hand from octets decoded by hand."""

from __future__ import annotations

import asyncio
import math

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.headers import ObjectHeader
from gridwire.dnp3.objects.fixed import fixed_codec
from gridwire.dnp3.objects.packed import decode_packed, packed_size
from gridwire.dnp3.objects.records import DnpObject
from gridwire.dnp3.objects.table import VARIATIONS, Layout, Variation, lookup
from gridwire.operations.encoding import (
    CHUNK,
    _always_alike,
    _msgspec_form,
    array_json,
    dumps,
    encode,
    fragment_json,
)


def _decl(group: int, variation: int) -> Variation:
    found = lookup(group, variation)
    assert found is not None
    return found


OCTET_STRINGS = [_decl(group, n) for group in (110, 111, 112, 113) for n in (1, 2, 7)]
DECODED = [
    v
    for v in [*VARIATIONS, *OCTET_STRINGS]
    if v is not None and v.layout in (Layout.FIXED, Layout.PACKED)
]
COUNT = 3


def decoded(decl: Variation, octets: bytes, start: int, base_ms: int | None) -> list[DnpObject]:
    """``COUNT`` objects of ``decl`` from ``octets`` (cut or padded to their size), points
    ``start``..., as a start-stop header's objects are decoded."""
    indices = range(start, start + COUNT)
    if decl.layout is Layout.PACKED:
        size = packed_size(decl.bits, COUNT)
        return decode_packed(decl, (octets * size)[:size] or bytes(size), indices, COUNT)
    codec = fixed_codec(decl)
    size = codec.size * COUNT
    block = (octets * size)[:size] if octets else bytes(size)
    return codec.ranged(block, indices, base_ms, None if base_ms is None else True)


def _exponent_or_nan(objects: list[DnpObject]) -> bool:
    """Whether a value (or a record's field) is a float orjson writes unlike msgspec."""
    for obj in objects:
        value = obj.value
        fields = [getattr(value, f) for f in getattr(value, "__slots__", ())] or [value]
        for field in fields:
            if type(field) is float and (math.isnan(field) or not -1e16 < field < 1e16):
                return True
    return False


def test_every_variation_is_written_fast_and_as_orjson_writes_it() -> None:
    # Zero octets: no value orjson writes unlike msgspec, so msgspec writes every variation
    # (records with floats, such as g41v3's AnalogCommand, included).
    fast = set()
    for decl in DECODED:
        objects = decoded(decl, b"", 7, 1_700_000_000_000) * 5
        assert array_json(objects) == dumps(objects), decl.name
        if _msgspec_form(objects) is not None:
            fast.add((decl.group, decl.variation))
    assert fast == {(v.group, v.variation) for v in DECODED}


@given(
    st.sampled_from(DECODED),
    st.binary(min_size=1, max_size=64),
    st.integers(0, 65530),
    st.none() | st.integers(0, 2**47),
)
@settings(max_examples=120, deadline=None)
def test_decoded_octets_are_written_field_by_field_as_before(
    decl: Variation, octets: bytes, start: int, base_ms: int | None
) -> None:
    objects = decoded(decl, octets, start, base_ms)
    fast = array_json(objects)
    assert fast == dumps(objects)
    # A fragment's objects written without a look when their variation is always written
    # alike (D235): those with floats are not, and still come out as orjson writes them.
    header = ObjectHeader(decl.group, decl.variation, qualifier=0x00, offset=0)
    assert fragment_json(objects, [header]) == fast
    assert orjson.loads(fast) == [orjson.loads(dumps(obj)) for obj in objects]
    if not _exponent_or_nan(objects):
        assert _msgspec_form(objects) is not None, decl.name


def test_a_mixed_answer_past_a_slice_is_orjsons() -> None:
    # Octet strings, times with intervals, counters and floats in one list, across slices.
    mixed = [
        *decoded(_decl(110, 2), b"AB", 0, None),
        *decoded(_decl(50, 4), b"\x01\x00\x00\x00\x00\x00\x0a\x00\x00\x00\x05", 0, None),
        *decoded(_decl(20, 1), b"\x01\x2a\x00\x00\x00", 4, None),
        *decoded(_decl(30, 5), b"\x01\x00\x00\xc0\x3f", 9, None),
    ] * (CHUNK // 6)
    assert asyncio.run(encode({"objects": mixed})) == dumps({"objects": mixed})


def test_octet_strings_and_times_written_from_octets_decoded_by_hand() -> None:
    # g110v2, points 5-6 (qualifier 0x00 start 5 stop 6): "AB" then 0x00 0xFF.
    strings = fixed_codec(_decl(110, 2)).ranged(b"AB\x00\xff", range(5, 7), None, None)
    assert array_json(strings) == (
        b'[{"type":null,"group":110,"variation":2,"index":5,"name":null,"value":"4142",'
        b'"flags":null,"time_ms":null,"synchronized":null,"event":false},'
        b'{"type":null,"group":110,"variation":2,"index":6,"name":null,"value":"00ff",'
        b'"flags":null,"time_ms":null,"synchronized":null,"event":false}]'
    )
    # g50v4 point 0: time 1000 ms (48 bits LE), interval 10 (32 bits LE), units 3 (minutes).
    octets = b"\xe8\x03\x00\x00\x00\x00" + b"\x0a\x00\x00\x00" + b"\x03"
    times = fixed_codec(_decl(50, 4)).ranged(octets, range(0, 1), None, None)
    assert _msgspec_form(times) is not None
    assert array_json(times) == (
        b'[{"type":null,"group":50,"variation":4,"index":0,"name":null,'
        b'"value":{"time_ms":1000,"interval":10,"units":"MINUTES"},'
        b'"flags":null,"time_ms":1000,"synchronized":null,"event":false}]'
    )


def test_variations_with_floats_or_other_octets_are_looked_at() -> None:
    # Written without a look: integers, flags, times, CROBs, octet strings (Octets, D236).
    for group, variation in ((1, 2), (20, 1), (30, 1), (50, 4), (12, 1), (41, 1), (110, 7)):
        assert _always_alike(group, variation), (group, variation)
    # Looked at: floats (30v5, 41v3's AnalogCommand), free formats (g70), none (g60).
    for group, variation in ((30, 5), (32, 7), (41, 3), (70, 5), (60, 1), (0, 240)):
        assert not _always_alike(group, variation), (group, variation)
    big = decoded(_decl(30, 5), b"\x01\x00\x00\x80\x5a", 0, None)  # 1.8e16: e+16 in orjson
    header = ObjectHeader(30, 5, qualifier=0x00, offset=0)
    assert fragment_json(big, [header]) == dumps(big) and b"e+16" in dumps(big)
