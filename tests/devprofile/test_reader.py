"""The hardened Device Profile reader: each refusal is a request error naming its rule, and
is made before the rule's harm is done (a DTD as it starts, a size before parsing)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gridwire.devprofile.layout import MAX_CELLS, MAX_COLUMNS, lay_out
from gridwire.devprofile.reader import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_ELEMENTS,
    read_document,
    read_document_file,
)
from gridwire.errors import RequestError
from tests.devprofile.documents import document

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE DNP3DeviceProfileDocument [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
]>
<DNP3DeviceProfileDocument><documentHeader><documentName>&f;</documentName>
</documentHeader></DNP3DeviceProfileDocument>"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE DNP3DeviceProfileDocument SYSTEM "http://127.0.0.1:9/profile.dtd">
<DNP3DeviceProfileDocument/>"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE DNP3DeviceProfileDocument [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<DNP3DeviceProfileDocument><documentHeader><documentName>&x;</documentName>
</documentHeader></DNP3DeviceProfileDocument>"""


def refusal(text: str | bytes) -> str:
    with pytest.raises(RequestError) as caught:
        lay_out(read_document(text))
    return str(caught.value)


@pytest.mark.parametrize("text", [BILLION_LAUGHS, EXTERNAL, EXTERNAL_ENTITY])
def test_a_document_type_is_refused_as_it_starts(text: str) -> None:
    started = time.perf_counter()
    message = refusal(text)
    assert "declares a document type (DTD)" in message
    assert time.perf_counter() - started < 1.0  # nothing was expanded or fetched


def test_an_entity_is_refused() -> None:
    message = refusal(document("<documentHeader><documentName>&x;</documentName></documentHeader>"))
    assert "refers to an entity (line 2, column" in message


def test_character_references_and_the_five_xml_entities_are_text() -> None:
    root = read_document(
        document(
            "<documentHeader><documentName>&lt;&amp;&#65;&#x42;"
            "&gt;&quot;&apos;</documentName></documentHeader>"
        )
    )
    assert lay_out(root).title == "<&AB>\"'"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not xml at all",
        "<DNP3DeviceProfileDocument>",
        "<DNP3DeviceProfileDocument></b>",
        b"\xff\xfe\x00<",
        "\x00",
    ],
)
def test_what_is_not_xml_is_refused(text: str | bytes) -> None:
    assert "it is not XML" in refusal(text)


def test_a_root_other_than_a_device_profile_is_refused() -> None:
    message = refusal(document("<documentHeader/>", root="html"))
    assert "not a Device Profile (its root element is <html>, not <DNP3DeviceProfileDocument>)" in (
        message
    )


def test_the_root_is_found_by_its_name_in_any_namespace_or_none() -> None:
    for ns in ("http://www.dnp3.org/DNP3/DeviceProfile/Jan2010", "urn:anything"):
        assert read_document(document("", ns=ns)).tag == "DNP3DeviceProfileDocument"
    root = read_document('<p:DNP3DeviceProfileDocument xmlns:p="urn:p" p:schemaVersion="9"/>')
    assert root.attrib == {"schemaVersion": "9"}
    assert read_document("<DNP3DeviceProfileDocument/>").tag == "DNP3DeviceProfileDocument"


def test_octets_are_read_in_the_encoding_the_document_declares() -> None:
    latin = '<?xml version="1.0" encoding="ISO-8859-1"?><DNP3DeviceProfileDocument>'
    latin += "<documentHeader><documentName>Caf\xe9</documentName></documentHeader>"
    latin += "</DNP3DeviceProfileDocument>"
    assert lay_out(read_document(latin.encode("latin-1"))).title == "Café"
    bom = (
        b"\xef\xbb\xbf"
        + document(
            "<documentHeader><documentName>\u00e9t\u00e9</documentName></documentHeader>"
        ).encode()
    )
    assert lay_out(read_document(bom)).title == "été"


def test_over_8_mib_is_refused_before_it_is_parsed() -> None:
    padding = " " * (MAX_BYTES - len(document("")) + 1)
    big = document(padding)
    assert len(big.encode()) == MAX_BYTES + 1
    assert "larger than 8 MiB (8,388,609 bytes" in refusal(big)
    assert "larger than 8 MiB" in refusal(big.encode())
    # Counted in octets: 4,194,305 two-octet characters are over the limit.
    assert "larger than 8 MiB" in refusal("\u00e9" * (MAX_BYTES // 2 + 1))
    at_limit = document(" " * (MAX_BYTES - len(document(""))))
    assert read_document(at_limit).tag == "DNP3DeviceProfileDocument"


def test_a_file_over_8_mib_is_read_no_further_than_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.xml"
    path.write_bytes(document(" " * (3 * MAX_BYTES)).encode())
    with pytest.raises(RequestError) as caught:
        read_document_file(path, "a test")
    assert f"Device Profile document {path} (a test) refused: it is larger than 8 MiB" in str(
        caught.value
    )
    assert "8,388,609 bytes" in str(caught.value)  # what was read: the limit and one octet


def test_a_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    with pytest.raises(RequestError, match=r"absent\.xml cannot be read: No such file"):
        read_document_file(tmp_path / "absent.xml")


def nested(depth: int) -> str:
    inner = "<a>" * (depth - 1) + "</a>" * (depth - 1)
    return document(inner)


def test_too_deep_is_refused_and_the_limit_itself_is_read() -> None:
    assert "nest more than 64 deep" in refusal(nested(MAX_DEPTH + 1))
    read_document(nested(MAX_DEPTH))


def test_too_many_elements_are_refused() -> None:
    assert "more than 500,000 elements" in refusal(document("<a/>" * MAX_ELEMENTS))
    read_document(document("<a/>" * (MAX_ELEMENTS - 1)))


def test_a_table_too_wide_is_refused() -> None:
    properties = "".join(f"<p{n}>x</p{n}>" for n in range(MAX_COLUMNS + 1))
    wide = document(
        f"<referenceDevice><list><dataPoints><e>{properties}</e>"
        "</dataPoints></list></referenceDevice>"
    )
    assert f"would have {MAX_COLUMNS + 1} columns (at most {MAX_COLUMNS})" in refusal(wide)
    fits = "".join(f"<p{n}>x</p{n}>" for n in range(MAX_COLUMNS))
    table = lay_out(
        read_document(
            document(
                f"<referenceDevice><list><dataPoints><e>{fits}</e>"
                "</dataPoints></list></referenceDevice>"
            )
        )
    )
    assert len(table.sections[0].tables[0].columns) == MAX_COLUMNS


def test_tables_too_large_are_refused() -> None:
    # 200 columns (one entry carries them all) x 5,001 rows: over 1,000,000 cells.
    first = "".join(f"<p{n}/>" for n in range(200))
    rows = "<e><p0/></e>" * (MAX_CELLS // 200)
    large = document(
        f"<referenceDevice><list><dataPoints><e>{first}</e>{rows}"
        "</dataPoints></list></referenceDevice>"
    )
    assert "would hold more than 1,000,000 cells" in refusal(large)


def test_facts_count_as_cells_too() -> None:
    # A table of exactly 1,000,000 cells (200 columns: the entries carry one attribute each,
    # 200 names in all; 5,000 rows) is laid out; a fact (a label and a value) beside it is
    # over the limit. Facts come from the root's attributes and the header's leaves, which
    # no element limit bounds: 700,000 attributes on the root would otherwise be 700,000
    # facts, laid out and answered.
    rows = "".join(f"<e a{n % 200}=''/>" for n in range(MAX_CELLS // 200))
    body = f"<referenceDevice><list><dataPoints>{rows}</dataPoints></list></referenceDevice>"
    (table,) = lay_out(read_document(document(body))).sections[0].tables
    assert (len(table.rows), len(table.columns)) == (5_000, 200)
    with_a_fact = document(body).replace(
        "<DNP3DeviceProfileDocument ", "<DNP3DeviceProfileDocument f='1' "
    )
    assert "would hold more than 1,000,000 cells" in refusal(with_a_fact)
