"""Safe parsing of application/sep+xml into typed models, from literal documents shaped as
IEEE 2030.5's schema shapes them (element names and order as in the standard)."""

from __future__ import annotations

import contextlib
import re

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
        (TIME.replace(b"<currentTime>1341579365</currentTime>", b""), "currentTime is missing"),
        (TIME.replace(b"<quality>4", b"<quality>high"), "quality 'high' is not an integer"),
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


# What a real head-end sent (a CSIP-AUS server): currentTime, dstEndTime, dstOffset, localTime
# and tzOffset, and no quality and no dstStartTime, though the schema requires both.
AS_A_REAL_HEAD_END_SENDS_IT = TIME.replace(b"<quality>4</quality>", b"").replace(
    b"<dstStartTime>1331460000</dstStartTime>", b""
)


def test_time_missing_required_fields_is_read_and_says_what_it_left_out() -> None:
    t = parse_time(AS_A_REAL_HEAD_END_SENDS_IT, "/tm")
    assert (t.current_time, t.tz_offset, t.dst_offset, t.dst_end_time) == (
        1341579365, -28800, 3600, 1352019600
    )  # fmt: skip
    assert (t.quality, t.dst_start_time) == (None, None)
    assert t.missing == ("dstStartTime", "quality")
    # Without a start, whether daylight saving applies cannot be told: not active, and no
    # local offset (its dstOffset is not 0).
    assert not t.dst_active_at(1341579365) and t.local_offset_at(1341579365) is None


def test_time_with_current_time_alone() -> None:
    body = b'<Time xmlns="urn:ieee:std:2030.5:ns"><currentTime>1341579365</currentTime></Time>'
    t = parse_time(body, "/tm")
    assert t.current_time == 1341579365 and t.href == "/tm"
    assert (t.tz_offset, t.dst_offset, t.quality, t.dst_start_time, t.dst_end_time) == (None,) * 5
    assert t.missing == ("dstEndTime", "dstOffset", "dstStartTime", "quality", "tzOffset")
    assert t.local_offset_at(1341579365) is None


# 2000-01-01T00:00:00Z is 946684800 and 2100-01-01T00:00:00Z is 4102444800 (by hand: 30 and
# 130 years of 365 days plus 7 and 31 leap days, times 86400).
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("currentTime", -(2**63)),
        ("currentTime", 2**63 - 1),
        ("currentTime", 0),
        ("currentTime", 946684799),
        ("currentTime", 4102444800),
        ("tzOffset", -(2**31)),
        ("tzOffset", 50401),
        ("tzOffset", -50401),
        ("dstOffset", 14401),
        ("dstOffset", -(2**31)),
    ],
)
def test_implausible_times_are_refused(field: str, value: int) -> None:
    body = re.sub(rf"<{field}>[^<]*<".encode(), f"<{field}>{value}<".encode(), TIME)
    with pytest.raises(ResourceError, match=rf"^Time /tm: {field} {value} is outside .*plausible"):
        parse_time(body, "/tm")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("currentTime", 946684800),
        ("currentTime", 4102444799),
        ("tzOffset", 50400),
        ("tzOffset", -50400),
        ("dstOffset", 14400),
        ("dstOffset", -14400),
    ],
)
def test_times_at_the_bounds_are_taken(field: str, value: int) -> None:
    body = re.sub(rf"<{field}>[^<]*<".encode(), f"<{field}>{value}<".encode(), TIME)
    assert getattr(parse_time(body, "/tm"), _SNAKE[field]) == value


_SNAKE = {"currentTime": "current_time", "tzOffset": "tz_offset", "dstOffset": "dst_offset"}


def test_links_resolve_against_the_url_they_came_in() -> None:
    # RFC 3986 section 5: an absolute path replaces the base's path, a relative one its last
    # segment, dot segments climb; the origin is kept, a fragment dropped.
    base = "https://head-end:8443/envoy/dcap"
    dcap = parse_device_capability(
        DCAP.replace(b'href="/tm"', b'href="tm"')
        .replace(b'href="/edev"', b'href="/envoy/edev"')
        .replace(b'href="/sdev"', b'href="./x/../sdev#self"')
        .replace(b'href="/derp"', b'href="https://head-end:8443/envoy/derp?a=1"'),
        base,
    )
    assert dcap.href == "/dcap"  # its own absolute href, as written
    assert dcap.time_link == Link("/envoy/tm")
    assert dcap.end_device_list_link == ListLink("/envoy/edev", 1)
    assert dcap.self_device_link == Link("/envoy/sdev")
    assert dcap.der_program_list_link == ListLink("/envoy/derp?a=1", 2)
    page = parse_function_set_assignments_list(
        FSA.replace(b'href="/tm"', b'href="../../tm"').replace(
            b'href="/edev/3/fsa/0/tm"', b'href="//elsewhere/tm"'
        ),
        "https://head-end:8443/envoy/edev/3/fsa?s=0&l=25",
    )
    first, second = page.items
    assert first.time_link == Link("https://elsewhere/tm")  # another origin: kept whole
    assert second.time_link == Link("/envoy/tm")


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
