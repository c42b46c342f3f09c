"""Property tests: arbitrary octets never make the parsers raise anything but DnpError and
always finish; and, as an extra to the literal-octet tests, encoding then decoding generated
valid values of every variation gives the values back."""

from __future__ import annotations

import contextlib
import struct
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.fragments import encode_response, parse_request, parse_response
from gridwire.dnp3.errors import DnpError
from gridwire.dnp3.objects.controls import OP_NAMES, STATUS_NAMES
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.flags import flag_names
from gridwire.dnp3.objects.records import (
    AnalogCommand,
    Attribute,
    AttributeEntry,
    CommandEvent,
    Crob,
    DnpObject,
    FileAuthentication,
    FileCommand,
    FileCommandStatus,
    FileDescriptor,
    FileTransport,
    FileTransportStatus,
    TimeAndInterval,
)
from gridwire.dnp3.objects.table import VARIATIONS, Layout, Variation, lookup
from gridwire.dnp3.objects.times import UNIT_NAMES

FUZZ = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUND = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KNOWN = [(v.group, v.variation) for v in VARIATIONS] + [(0, 240), (110, 4), (111, 1), (0, 0)]
QUALIFIERS = [0x00, 0x01, 0x02, 0x03, 0x06, 0x07, 0x08, 0x09, 0x17, 0x28, 0x39, 0x5B, 0x4B, 0x27]


def _parse_any(fragment: bytes) -> None:
    for parse in (parse_request, parse_response):
        with contextlib.suppress(DnpError):
            parse(fragment)


@FUZZ
@given(st.binary(max_size=300))
def test_arbitrary_octets_only_raise_dnp_errors(fragment: bytes) -> None:
    _parse_any(fragment)


@st.composite
def _plausible(draw: st.DrawFn) -> bytes:
    """A response or request header, then headers of known objects and real qualifiers with
    random range fields and data: the walk goes deep into every decoder."""
    head = draw(
        st.sampled_from([b"\xc0\x81\x00\x00", b"\xc0\x82\x00\x00", b"\xc0\x02", b"\xc0\x05"])
    )
    body = b""
    for _ in range(draw(st.integers(1, 4))):
        group, variation = draw(st.sampled_from(KNOWN))
        qualifier = draw(st.sampled_from(QUALIFIERS))
        rng = draw(st.binary(min_size=0, max_size=4))
        body += bytes((group, variation, qualifier)) + rng + draw(st.binary(max_size=60))
    return head + body


@FUZZ
@given(_plausible())
def test_plausible_fragments_only_raise_dnp_errors(fragment: bytes) -> None:
    _parse_any(fragment)


# Encode then decode ---------------------------------------------------------------------

U8, U16, U32 = st.integers(0, 0xFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF)
TIME48 = st.integers(0, (1 << 48) - 1)
STATUS = st.sampled_from(STATUS_NAMES[:128])
TEXT = st.text(max_size=20)
NUMBERS: dict[str, st.SearchStrategy[Any]] = {
    "B": U8,
    "H": U16,
    "I": U32,
    "h": st.integers(-(2**15), 2**15 - 1),
    "i": st.integers(-(2**31), 2**31 - 1),
    "f": st.floats(width=32),
    "d": st.floats(),
}


def _value_code(decl: Variation) -> str:
    for fld in decl.fields:
        for role, _ in fld.reads:
            if role in ("value", "part:value") and fld.read_code in NUMBERS:
                return fld.read_code
    return ""


def _roles(decl: Variation) -> set[str]:
    return {role for fld in decl.fields for role, _ in fld.reads}


def _value(decl: Variation) -> st.SearchStrategy[Any]:
    record, code = decl.record, _value_code(decl)
    if record is Crob:
        return st.builds(Crob, U8, st.just(""), U8, U32, U32, STATUS)
    if record is AnalogCommand:
        return st.builds(AnalogCommand, NUMBERS[code], STATUS)
    if record is CommandEvent:
        return st.builds(CommandEvent, st.booleans(), STATUS)
    if record is TimeAndInterval:
        units = st.just("MILLISECONDS") if decl.variation == 2 else st.sampled_from(UNIT_NAMES)
        return st.builds(TimeAndInterval, TIME48, U32, units)
    if decl.point_type in ("bi", "bo") or decl.bits == 1:
        return st.booleans()
    if decl.point_type == "dbi":
        return st.integers(0, 3)
    if decl.group in (50, 51):
        return TIME48
    if decl.group >= 110:
        return st.binary(min_size=decl.variation, max_size=decl.variation)
    return NUMBERS[code]


ATTRIBUTES = st.one_of(
    st.builds(Attribute, st.just("VSTR"), st.text(max_size=60)),
    st.builds(Attribute, st.just("UINT"), st.integers(0, 2**64 - 1)),
    st.builds(Attribute, st.just("INT"), st.integers(-(2**63), 2**63 - 1)),
    st.builds(Attribute, st.just("FLT"), st.floats()),
    st.builds(Attribute, st.sampled_from(["OSTR", "BSTR"]), st.binary(max_size=255)),
    st.builds(Attribute, st.just("TIME"), TIME48),
    st.builds(
        Attribute, st.just("LIST"), st.lists(st.builds(AttributeEntry, U8, U8), max_size=127)
    ),
)
FILES: dict[type, st.SearchStrategy[Any]] = {
    FileAuthentication: st.builds(FileAuthentication, TEXT, TEXT, U32),
    FileCommand: st.builds(FileCommand, TEXT, TIME48, U16, U32, U32, U16, U16, U16),
    FileCommandStatus: st.builds(
        FileCommandStatus, U32, U32, U16, U16, st.sampled_from(["SUCCESS", "FATAL"]), TEXT
    ),
    FileTransport: st.builds(
        FileTransport, U32, st.integers(0, 0x7FFFFFFF), st.booleans(), st.binary()
    ),
    FileTransportStatus: st.builds(
        FileTransportStatus,
        U32,
        st.integers(0, 0x7FFFFFFF),
        st.booleans(),
        st.just("BLOCK_SEQ"),
        TEXT,
    ),
    FileDescriptor: st.builds(FileDescriptor, TEXT, U16, U32, TIME48, U16, U16),
    str: TEXT,
}


def _same(a: object, b: object) -> bool:
    """Equal, floats compared by bit pattern (NaN payloads included)."""
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, AnalogCommand) and isinstance(b, AnalogCommand):
        return _same(a.value, b.value) and a.status == b.status
    if isinstance(a, Attribute) and isinstance(b, Attribute):
        return a.data_type == b.data_type and _same(a.value, b.value)
    return a == b


def _expected_value(given: Any) -> Any:
    """What the decoder gives back: a CROB's operation is named from its code."""
    return replace(given, op=OP_NAMES[given.code]) if isinstance(given, Crob) else given


@st.composite
def _items(draw: st.DrawFn, decl: Variation) -> tuple[list[Item], int | None]:
    roles = _roles(decl)
    cto = draw(TIME48.filter(lambda t: t < (1 << 48) - 0x10000)) if "sync" in roles else None
    if decl.layout is Layout.PACKED:
        count = draw(st.integers(1, 20))
        start = draw(st.integers(0, 1000))
        return [Item(start + k, draw(_value(decl))) for k in range(count)], None
    if decl.layout is Layout.FREE and decl.free is not None:
        return [Item(None, draw(FILES[decl.free.record]))], None
    if decl.layout is Layout.ATTRIBUTE:
        return [Item(0, draw(ATTRIBUTES))], None
    indexes = draw(st.lists(st.integers(0, 70000), min_size=1, max_size=6, unique=True))
    items = []
    for index in indexes:
        time_ms = None
        if "time" in roles:
            time_ms = cto + draw(U16) if cto is not None else draw(TIME48)
        items.append(Item(index if decl.indexed else None, draw(_value(decl)), draw(U8), time_ms))
    return items, cto


GENERATED = [lookup(g, v) for g, v in [(110, 1), (110, 255), (113, 7), (0, 250)]]
ROUND_TRIP = [v for v in VARIATIONS if v.layout is not Layout.NONE] + [
    v for v in GENERATED if v is not None
]


@pytest.mark.parametrize("decl", ROUND_TRIP, ids=[f"g{v.group}v{v.variation}" for v in ROUND_TRIP])
def test_encode_then_decode_gives_the_values_back(decl: Variation) -> None:
    @ROUND
    @given(_items(decl))
    def check(generated: tuple[list[Item], int | None]) -> None:
        items, cto = generated
        body = encode_objects(decl.group, decl.variation, items, cto_ms=cto)
        if cto is not None:
            body = encode_objects(51, 1, [Item(None, cto)]) + body
        response = parse_response(encode_response(0xC0, "RESPONSE", 0, body))
        assert response.undecoded == []
        objects: list[DnpObject] = [
            o for o in response.objects if (o.group, o.variation) == (decl.group, decl.variation)
        ]
        assert len(objects) == len(items)
        mask = {"bi": 0x7F, "bo": 0x7F, "dbi": 0x3F}.get(decl.point_type or "", 0xFF)
        for item, obj in zip(items, objects, strict=True):
            assert obj.index == item.index
            assert _same(obj.value, _expected_value(item.value))
            if decl.carries_flags and decl.point_type:
                assert obj.flags == flag_names(decl.point_type)[item.flags & mask]
            else:
                assert obj.flags is None
            if "time" in _roles(decl) and decl.group not in (50, 51):
                assert obj.time_ms == item.time_ms
            assert obj.event is decl.event and obj.name is None

    check()
