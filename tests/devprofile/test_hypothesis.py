"""Whatever it is given, the Device Profile reader, its layout and its declared points raise
nothing but a request error, and end (each example within hypothesis's deadline): arbitrary
text and octets, and arbitrary well-formed XML built from the element names the layout and
the comparison look for and from names of no meaning."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.devprofile.layout import lay_out
from gridwire.devprofile.points import declared_points
from gridwire.devprofile.reader import read_document
from gridwire.errors import RequestError

KNOWN = [
    "DNP3DeviceProfileDocument",
    "documentHeader",
    "documentName",
    "revisionHistory",
    "referenceDevice",
    "configuration",
    "deviceConfig",
    "deviceName",
    "vendorName",
    "capabilities",
    "currentValue",
    "methods",
    "value",
    "range",
    "implementationTable",
    "table",
    "supportedVariation",
    "functionCode",
    "qualifierCode",
    "dataPointsList",
    "dataPoints",
    "files",
    "binaryInput",
    "doubleBitInput",
    "binaryOutput",
    "counter",
    "analogInput",
    "analogOutput",
    "index",
    "name",
    "changeEventClass",
    "counterEventClass",
    "includedInClass0Response",
    "frozenCounterExists",
    "deadband",
]
FIRST = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
REST = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", max_size=12)
NAMES = st.one_of(st.sampled_from(KNOWN), st.builds(lambda f, r: f + r, FIRST, REST))
# XML 1.0 characters: no C0 controls but tab, newline and return, no surrogates.
TEXT = st.one_of(
    st.sampled_from(["", "one", "two", "never", "always", "true", "1", "06", "-3", "1e9", "nan"]),
    st.text(
        st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"),
        max_size=20,
    ),
)


def _element(
    name: str, attributes: dict[str, str], text: str, children: list[ET.Element]
) -> ET.Element:
    element = ET.Element(name, attributes)
    element.text = text
    element.extend(children)
    return element


def _trees(max_leaves: int) -> st.SearchStrategy[ET.Element]:
    return st.recursive(
        st.builds(_element, NAMES, st.dictionaries(NAMES, TEXT, max_size=2), TEXT, st.just([])),
        lambda children: st.builds(
            _element,
            NAMES,
            st.dictionaries(NAMES, TEXT, max_size=2),
            TEXT,
            st.lists(children, max_size=6),
        ),
        max_leaves=max_leaves,
    )


ELEMENTS = _trees(60)
SUBTREES = _trees(8)
"""Inside a point's properties, of which a document has up to 64: small trees, or hypothesis
spends a minute making each run's documents (thousands of leaves each) for the parser's
fraction of a second."""


PROPERTIES = st.lists(
    st.builds(
        _element,
        st.sampled_from(KNOWN[KNOWN.index("index") :]),
        st.just({}),
        TEXT,
        st.one_of(st.just([]), st.lists(SUBTREES, max_size=2)),
    ),
    max_size=8,
)
ENTRIES = st.lists(
    st.builds(
        _element,
        st.sampled_from(KNOWN[KNOWN.index("binaryInput") : KNOWN.index("index")]),
        st.just({}),
        st.just(""),
        PROPERTIES,
    ),
    max_size=8,
)


def _shaped(entries: list[ET.Element], parts: list[ET.Element]) -> ET.Element:
    """A document shaped as a Device Profile: a point list of these entries, and parts."""
    points = _element("dataPoints", {}, "", entries)
    listing = _element("dataPointsList", {}, "", [_element("list", {}, "", [points])])
    device = _element("referenceDevice", {}, "", [*parts, listing])
    return _element("DNP3DeviceProfileDocument", {}, "", [device])


def _examine(document: str | bytes) -> None:
    try:
        root = read_document(document)
        lay_out(root)
        declared_points(root)
    except RequestError:
        pass


ENDS = settings(
    max_examples=300,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TREES = settings(ENDS, max_examples=150)


@ENDS
@given(st.text())
def test_arbitrary_text(text: str) -> None:
    _examine(text)


@ENDS
@given(st.binary())
def test_arbitrary_octets(data: bytes) -> None:
    _examine(data)


@ENDS
@given(
    st.builds(
        lambda prefix, text: prefix + text,
        st.sampled_from(
            [
                "<DNP3DeviceProfileDocument>",
                "<?xml version='1.0'?><DNP3DeviceProfileDocument ",
                "<DNP3DeviceProfileDocument><referenceDevice><dataPointsList>",
            ]
        ),
        st.text(),
    )
)
def test_text_after_a_device_profile_root(text: str) -> None:
    _examine(text)


@TREES
@given(
    st.one_of(st.just("DNP3DeviceProfileDocument"), NAMES),
    st.lists(ELEMENTS, max_size=4),
    st.booleans(),
)
def test_arbitrary_well_formed_xml(root: str, children: list[ET.Element], octets: bool) -> None:
    tree = _element(root, {}, "", children)
    text = ET.tostring(tree, encoding="unicode")
    _examine(text.encode("utf-8") if octets else text)


@pytest.mark.timeout(600)  # CPU-bound: over 120 s in the parallel phase on a loaded machine (D126)
@TREES
@given(ENTRIES, st.lists(SUBTREES, max_size=3))
def test_arbitrary_documents_shaped_as_a_device_profile(
    entries: list[ET.Element], parts: list[ET.Element]
) -> None:
    _examine(ET.tostring(_shaped(entries, parts), encoding="unicode"))
