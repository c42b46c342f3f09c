"""Safe parsing of application/sep+xml into typed models, from literal documents shaped as
IEEE 2030.5's schema shapes them (element names and order as in the standard)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.sep2.errors import ResourceError
from gridwire.sep2.parsing import (
    parse_device_capability,
    parse_end_device_list,
    parse_function_set_assignments_list,
    parse_time,
)
from gridwire.sep2.resources import DEFAULT_POLL_RATE, Link, ListLink

DCAP = b"""<?xml version="1.0" encoding="UTF-8"?>
<DeviceCapability xmlns="urn:ieee:std:2030.5:ns" href="/dcap" pollRate="300">
  <DERProgramListLink href="/derp" all="2"/>
  <TimeLink href="/tm"/>
  <EndDeviceListLink href="/edev" all="1"/>
  <MirrorUsagePointListLink href="/mup" all="0"/>
  <SelfDeviceLink href="/sdev"/>
</DeviceCapability>"""

# currentTime 1341579365 is 2012-07-06 12:56:05 UTC. Pacific time: tzOffset -28800 (UTC-8) and
# dstOffset 3600, daylight saving from 1331460000 (2012-03-11 10:00 UTC, 02:00 PST) to
# 1352019600 (2012-11-04 02:00 PDT, 09:00 UTC). So localTime = 1341579365 - 28800 + 3600
# = 1341554165 (05:56:05 PDT).
TIME = (
    b'<Time xmlns="urn:ieee:std:2030.5:ns" href="/tm" pollRate="60">'
    b"<currentTime>1341579365</currentTime><dstEndTime>1352019600</dstEndTime>"
    b"<dstOffset>3600</dstOffset><dstStartTime>1331460000</dstStartTime>"
    b"<localTime>1341554165</localTime><quality>4</quality><tzOffset>-28800</tzOffset></Time>"
)

EDEV = b"""<EndDeviceList xmlns="urn:ieee:std:2030.5:ns" href="/edev" all="5" results="2"
 subscribable="0">
  <EndDevice href="/edev/3" subscribable="0">
    <DERListLink href="/edev/3/der" all="1"/>
    <lFDI>3e4f45ab31edfe5b67e343e5e4562e31984e23e5</lFDI>
    <sFDI>167261211391</sFDI>
    <changedTime>1379905200</changedTime>
    <enabled>true</enabled>
    <FunctionSetAssignmentsListLink href="/edev/3/fsa" all="2"/>
  </EndDevice>
  <EndDevice href="/edev/4"><sFDI>1</sFDI></EndDevice>
</EndDeviceList>"""

FSA = b"""<FunctionSetAssignmentsList xmlns="urn:ieee:std:2030.5:ns" href="/edev/3/fsa" all="2"
 results="2" pollRate="900">
  <FunctionSetAssignments href="/edev/3/fsa/0">
    <DERProgramListLink href="/edev/3/fsa/0/derp" all="1"/>
    <TimeLink href="/edev/3/fsa/0/tm"/>
    <mRID>0FB7A0B5E1F34C6C8D2E9A2B1C0D0E0F</mRID>
    <description>Feeder 12</description>
    <version>0</version>
  </FunctionSetAssignments>
  <FunctionSetAssignments href="/edev/3/fsa/1">
    <TimeLink href="/tm"/>
    <mRID>0FB7A0B5E1F34C6C8D2E9A2B1C0D0E10</mRID>
    <version>0</version>
  </FunctionSetAssignments>
</FunctionSetAssignmentsList>"""


def test_device_capability() -> None:
    dcap = parse_device_capability(DCAP, "/dcap")
    assert dcap.href == "/dcap"
    assert dcap.poll_rate == 300
    assert dcap.time_link == Link("/tm")
    assert dcap.end_device_list_link == ListLink("/edev", 1)
    assert dcap.der_program_list_link == ListLink("/derp", 2)
    assert dcap.self_device_link == Link("/sdev")


def test_device_capability_without_poll_rate_uses_the_schema_default() -> None:
    dcap = parse_device_capability(b'<DeviceCapability xmlns="urn:ieee:std:2030.5:ns"/>', "/x")
    assert (dcap.href, dcap.poll_rate, dcap.time_link) == ("/x", None, None)
    assert dcap.effective_poll_rate == DEFAULT_POLL_RATE == 900


def test_time() -> None:
    t = parse_time(TIME)
    assert (t.href, t.poll_rate, t.current_time) == ("/tm", 60, 1341579365)
    assert (t.tz_offset, t.dst_offset, t.quality, t.local_time) == (-28800, 3600, 4, 1341554165)
    assert t.dst_active_at(1341579365)
    assert not t.dst_active_at(1352019600)  # the end is exclusive
    assert t.dst_active_at(1331460000)  # the start is inclusive


def test_time_without_poll_rate_or_local_time() -> None:
    body = TIME.replace(b' pollRate="60"', b"").replace(b"<localTime>1341554165</localTime>", b"")
    t = parse_time(body)
    assert (t.poll_rate, t.effective_poll_rate, t.local_time) == (None, 900, None)


def test_southern_hemisphere_daylight_saving_spans_the_new_year() -> None:
    # Start (October) after end (April) in the same calendar year: active outside the span.
    body = TIME.replace(b"1352019600", b"1000").replace(b"1331460000", b"2000")
    t = parse_time(body)
    assert t.dst_active_at(999) and t.dst_active_at(2000)
    assert not t.dst_active_at(1500)


def test_end_device_list_page() -> None:
    page = parse_end_device_list(EDEV, "/edev")
    assert (page.href, page.all, page.results) == ("/edev", 5, 2)
    first, second = page.items
    assert first.lfdi == "3E4F45AB31EDFE5B67E343E5E4562E31984E23E5"
    assert first.sfdi == 167261211391
    assert first.function_set_assignments_list_link == ListLink("/edev/3/fsa", 2)
    assert (second.href, second.lfdi, second.function_set_assignments_list_link) == (
        "/edev/4",
        None,
        None,
    )


def test_function_set_assignments_list() -> None:
    page = parse_function_set_assignments_list(FSA, "/edev/3/fsa")
    first, second = page.items
    assert first.time_link == Link("/edev/3/fsa/0/tm")
    assert first.der_program_list_link == ListLink("/edev/3/fsa/0/derp", 1)
    assert (first.description, first.mrid) == ("Feeder 12", "0FB7A0B5E1F34C6C8D2E9A2B1C0D0E0F")
    # a TimeLink and no DERProgramListLink, as head-ends send
    assert (second.time_link, second.der_program_list_link) == (Link("/tm"), None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (TIME.replace(b"<quality>4</quality>", b""), "quality is missing"),
        (TIME.replace(b">1341579365<", b">soon<"), "currentTime 'soon' is not an integer"),
        (TIME.replace(b"<tzOffset>-28800", b"<tzOffset>99999999999"), "tzOffset .* out of range"),
        (TIME.replace(b"<quality>4", b"<quality>256"), "quality 256 is out of range"),
        (TIME.replace(b'pollRate="60"', b'pollRate="-1"'), "@pollRate -1 is out of range"),
        (TIME.replace(b"urn:ieee:std:2030.5:ns", b"urn:other"), "namespace 'urn:other'"),
        (DCAP, "expected Time, got DeviceCapability"),
        (TIME[:-3], "not well-formed XML"),
        (b"", "not well-formed XML"),
        (b"\xff\xfe<", "not well-formed XML"),
    ],
)
def test_malformed_time_is_refused_with_the_field_named(body: bytes, message: str) -> None:
    with pytest.raises(ResourceError, match=message):
        parse_time(body, "/tm")


def test_list_entry_without_href_is_refused() -> None:
    with pytest.raises(ResourceError, match=r"EndDevice\[1\]: has no href"):
        parse_end_device_list(EDEV.replace(b'<EndDevice href="/edev/4">', b"<EndDevice>"))


def test_link_without_href_is_refused() -> None:
    with pytest.raises(ResourceError, match="TimeLink has no href"):
        parse_device_capability(DCAP.replace(b'<TimeLink href="/tm"/>', b"<TimeLink/>"))


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE Time [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<Time xmlns="urn:ieee:std:2030.5:ns"><currentTime>&c;</currentTime></Time>"""

EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE Time [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<Time xmlns="urn:ieee:std:2030.5:ns"><currentTime>&x;</currentTime></Time>"""

DTD_ONLY = b"""<!DOCTYPE Time SYSTEM "http://127.0.0.1:9/sep.dtd"><Time/>"""


@pytest.mark.parametrize("body", [BILLION_LAUGHS, EXTERNAL, DTD_ONLY])
def test_dtds_and_entities_are_refused(body: bytes) -> None:
    with pytest.raises(ResourceError, match="refused unsafe XML"):
        parse_time(body, "/tm")


def test_oversized_body_is_refused_before_parsing() -> None:
    with pytest.raises(ResourceError, match="over 1048576"):
        parse_time(b" " * ((1 << 20) + 1))


PARSERS = [
    parse_device_capability,
    parse_time,
    parse_end_device_list,
    parse_function_set_assignments_list,
]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(PARSERS))
def test_arbitrary_octets_raise_only_resource_error(body: bytes, parse: object) -> None:
    assert callable(parse)
    with contextlib.suppress(ResourceError):
        parse(body, "/x")


_FIELD_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30
).map(lambda s: s.replace("&", "&amp;").replace("<", "&lt;"))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "currentTime",
                    "dstEndTime",
                    "dstOffset",
                    "dstStartTime",
                    "localTime",
                    "quality",
                    "tzOffset",
                    "lFDI",
                    "sFDI",
                    "TimeLink",
                    "EndDevice",
                    "mRID",
                ]
            ),
            _FIELD_TEXT,
        ),
        max_size=10,
    ),
    st.sampled_from(["Time", "DeviceCapability", "EndDeviceList", "FunctionSetAssignmentsList"]),
    st.sampled_from(PARSERS),
)
def test_structured_documents_raise_only_resource_error(
    fields: list[tuple[str, str]], root: str, parse: object
) -> None:
    inner = "".join(f'<{name} href="{text}" all="{text}">{text}</{name}>' for name, text in fields)
    body = f'<{root} xmlns="urn:ieee:std:2030.5:ns" pollRate="{len(fields)}">{inner}</{root}>'
    assert callable(parse)
    with contextlib.suppress(ResourceError):
        parse(body.encode(), "/x")
