"""Hypothesis on the device attribute (g0) decoder: any octets read as an attribute or a
DecodeError, never anything else; every attribute the encoder takes decodes back to itself,
and the master's typing of it gives JSON-ready values; a g0 object header with an attribute
decodes through the fragment decoder to the same attribute, by the standard's name."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.errors import DecodeError, EncodeError
from gridwire.dnp3.objects.attributes import ATTRIBUTE_NAMES, encode_attribute, read_attribute
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.records import Attribute, AttributeEntry
from gridwire.master.attributes import device_attribute, typed

_entries = st.lists(
    st.builds(AttributeEntry, st.integers(0, 255), st.integers(0, 255)), max_size=127
)
attributes = st.one_of(
    st.builds(Attribute, st.just("VSTR"), st.text(max_size=60)),
    st.builds(Attribute, st.just("UINT"), st.integers(0, 2**64 - 1)),
    st.builds(Attribute, st.just("INT"), st.integers(-(2**63), 2**63 - 1)),
    st.builds(Attribute, st.just("FLT"), st.floats(allow_nan=False)),
    st.builds(Attribute, st.sampled_from(["OSTR", "BSTR"]), st.binary(max_size=255)),
    st.builds(Attribute, st.just("TIME"), st.integers(0, 2**48 - 1)),
    st.builds(Attribute, st.just("LIST"), _entries),
)


@given(st.binary(max_size=300))
@settings(max_examples=400)
def test_any_octets_decode_or_raise_decode_error(data: bytes) -> None:
    try:
        attribute, end = read_attribute(data, 0, len(data))
    except DecodeError:
        return
    assert 2 <= end <= len(data)
    typed(attribute)


@given(attributes)
def test_every_encodable_attribute_decodes_to_itself(attribute: Attribute) -> None:
    try:
        octets = encode_attribute(attribute)
    except EncodeError:  # a VSTR of many multi-octet characters
        assert attribute.data_type == "VSTR"
        return
    decoded, end = read_attribute(octets, 0, len(octets))
    assert end == len(octets)
    assert decoded.data_type == attribute.data_type
    if attribute.data_type == "VSTR":
        assert decoded.value == attribute.value
    elif attribute.data_type == "FLT":
        assert isinstance(decoded.value, float) and isinstance(attribute.value, float)
        assert decoded.value == attribute.value or (
            math.isinf(decoded.value) and math.isinf(attribute.value)
        )
    else:
        assert decoded.value == attribute.value
    value, text = typed(decoded)
    assert isinstance(text, str)
    assert value is None or isinstance(value, str | int | float | list)


@given(st.sampled_from(sorted(set(ATTRIBUTE_NAMES) - {254, 255})), attributes)
def test_a_g0_object_decodes_through_the_fragment_decoder(
    variation: int, attribute: Attribute
) -> None:
    try:
        body = encode_objects(0, variation, [Item(0, attribute)])
    except EncodeError:  # a VSTR too long once encoded
        return
    response = parse_response(bytes.fromhex("C0 81 00 00") + body)
    [obj] = response.objects
    found = device_attribute(obj)
    assert found is not None
    assert (found.set, found.variation) == (0, variation)
    assert found.key == ATTRIBUTE_NAMES[variation][0]
    assert found.name == ATTRIBUTE_NAMES[variation][1]
