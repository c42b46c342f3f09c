"""Safe parsing of ``application/sep+xml`` bodies into the models of :mod:`.resources`.

The XML parser is expat behind defusedxml with DTDs forbidden outright, so no entity is ever
expanded and nothing is fetched from the network. Bodies larger than :data:`MAX_BODY` are
refused before parsing. Every parser raises :class:`ResourceError` and nothing else,
whatever octets it is given.

Each parser takes the URL the body came from (a path will do where no origin is known): every
``href`` in the body is resolved against it (:mod:`.links`), and errors name it.

Time is read as real head-ends send it: ``currentTime`` is required and must be a plausible
time (:data:`TIME_BOUNDS`); the other fields the schema requires may be missing (they are then
None and named in ``Time.missing``), but one that is present must be valid and plausible
(:data:`TZ_OFFSET_LIMIT`, :data:`DST_OFFSET_LIMIT`), or the observation is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from gridwire.sep2.errors import ResourceError
from gridwire.sep2.limits import MAX_BODY
from gridwire.sep2.links import resolve
from gridwire.sep2.resources import (
    DeviceCapability,
    EndDevice,
    FunctionSetAssignments,
    Link,
    ListLink,
    ListPage,
    Time,
)

NAMESPACE = "urn:ieee:std:2030.5:ns"
MEDIA_TYPE = "application/sep+xml"

_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")
_HEX = re.compile(r"[0-9A-Fa-f]*")

INT64 = (-(1 << 63), (1 << 63) - 1)
INT32 = (-(1 << 31), (1 << 31) - 1)
UINT32 = (0, (1 << 32) - 1)
UINT8 = (0, 255)
UINT64 = (0, (1 << 64) - 1)

# What a head-end's clock may plausibly say: 2000-01-01T00:00:00Z to 2100-01-01T00:00:00Z
# (epoch seconds, the end excluded), and time zone offsets as the world has them (UTC-12 to
# UTC+14; daylight saving of 30 minutes to 2 hours, allowed up to 4).
TIME_BOUNDS = (946_684_800, 4_102_444_800 - 1)
TIME_BOUNDS_TEXT = "2000-01-01..2100-01-01"
TZ_OFFSET_LIMIT = 14 * 3600
DST_OFFSET_LIMIT = 4 * 3600
# The elements of Time the schema requires besides currentTime, in the schema's order.
TIME_REQUIRED = ("dstEndTime", "dstOffset", "dstStartTime", "quality", "tzOffset")

T = TypeVar("T")


class _Reader:
    """Field access on one element, with errors that name the resource and the field."""

    def __init__(self, element: Element, namespace: str, where: str, base: str) -> None:
        self.element = element
        self.ns = namespace
        self.where = where
        self.base = base  # the URL links are resolved against

    def fail(self, message: str) -> ResourceError:
        return ResourceError(f"{self.where}: {message}")

    def child(self, name: str) -> Element | None:
        return self.element.find(f"{self.ns}{name}")

    def children(self, name: str) -> list[Element]:
        return self.element.findall(f"{self.ns}{name}")

    def text(self, name: str) -> str | None:
        found = self.child(name)
        if found is None:
            return None
        return (found.text or "").strip()

    def _integer(self, raw: str, name: str, bounds: tuple[int, int]) -> int:
        raw = raw.strip()
        if not _INTEGER.fullmatch(raw):
            raise self.fail(f"{name} {raw[:40]!r} is not an integer")
        value = int(raw)
        if not bounds[0] <= value <= bounds[1]:
            raise self.fail(f"{name} {value} is out of range {bounds[0]}..{bounds[1]}")
        return value

    def integer(self, name: str, bounds: tuple[int, int]) -> int:
        value = self.optional_integer(name, bounds)
        if value is None:
            raise self.fail(f"{name} is missing")
        return value

    def optional_integer(self, name: str, bounds: tuple[int, int]) -> int | None:
        raw = self.text(name)
        return None if raw is None else self._integer(raw, name, bounds)

    def check_plausible(
        self, name: str, value: int | None, bounds: tuple[int, int], what: str
    ) -> None:
        """Refuse the resource when ``value`` is outside ``bounds`` (``what`` says them)."""
        if value is not None and not bounds[0] <= value <= bounds[1]:
            raise self.fail(f"{name} {value} is outside {what}: not a plausible time")

    def attribute_integer(self, name: str, bounds: tuple[int, int]) -> int | None:
        raw = self.element.get(name)
        return None if raw is None else self._integer(raw, f"@{name}", bounds)

    def hex_text(self, name: str, digits: int) -> str | None:
        raw = self.text(name)
        if raw is None:
            return None
        if len(raw) > digits or not _HEX.fullmatch(raw):
            raise self.fail(f"{name} {raw[:48]!r} is not up to {digits} hexadecimal digits")
        return raw.upper()

    def link(self, name: str) -> Link | None:
        found = self.child(name)
        if found is None:
            return None
        return Link(self._href(found, name))

    def list_link(self, name: str) -> ListLink | None:
        found = self.child(name)
        if found is None:
            return None
        raw_all = found.get("all")
        count = None if raw_all is None else self._integer(raw_all, f"{name}@all", UINT32)
        return ListLink(self._href(found, name), count)

    def _href(self, element: Element, name: str) -> str:
        href = (element.get("href") or "").strip()
        if not href:
            raise self.fail(f"{name} has no href")
        return resolve(self.base, href)


def _root(body: bytes, tag: str, href: str) -> _Reader:
    where = f"{tag} {href}".rstrip()
    if len(body) > MAX_BODY:
        raise ResourceError(f"{where}: body of {len(body)} octets is over {MAX_BODY}")
    try:
        element = fromstring(body, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise ResourceError(f"{where}: refused unsafe XML ({type(exc).__name__})") from None
    except ParseError as exc:
        raise ResourceError(f"{where}: not well-formed XML ({exc})") from None
    except (ValueError, LookupError, UnicodeError) as exc:
        # expat's own refusals that are not ParseError: an unknown encoding name, for one.
        raise ResourceError(f"{where}: not readable XML ({exc})") from None
    ns, local = "", element.tag
    if local.startswith("{"):
        uri, _, local = local[1:].partition("}")
        if uri != NAMESPACE:
            raise ResourceError(f"{where}: namespace {uri[:80]!r} is not {NAMESPACE}")
        ns = f"{{{NAMESPACE}}}"
    if local != tag:
        raise ResourceError(f"{where}: expected {tag}, got {local[:80]}")
    return _Reader(element, ns, where, href)


def _href_of(reader: _Reader) -> str:
    """The resource's own href, resolved; the URL it came from when it gives none."""
    return resolve(reader.base, (reader.element.get("href") or "").strip())


def parse_device_capability(body: bytes, href: str = "") -> DeviceCapability:
    r = _root(body, "DeviceCapability", href)
    return DeviceCapability(
        href=_href_of(r),
        poll_rate=r.attribute_integer("pollRate", UINT32),
        time_link=r.link("TimeLink"),
        end_device_list_link=r.list_link("EndDeviceListLink"),
        self_device_link=r.link("SelfDeviceLink"),
        der_program_list_link=r.list_link("DERProgramListLink"),
    )


def parse_time(body: bytes, href: str = "") -> Time:
    r = _root(body, "Time", href)
    current = r.integer("currentTime", INT64)
    tz_offset = r.optional_integer("tzOffset", INT32)
    dst_offset = r.optional_integer("dstOffset", INT32)
    r.check_plausible("currentTime", current, TIME_BOUNDS, TIME_BOUNDS_TEXT)
    r.check_plausible("tzOffset", tz_offset, (-TZ_OFFSET_LIMIT, TZ_OFFSET_LIMIT), "-14 h..14 h")
    r.check_plausible("dstOffset", dst_offset, (-DST_OFFSET_LIMIT, DST_OFFSET_LIMIT), "-4 h..4 h")
    return Time(
        href=_href_of(r),
        poll_rate=r.attribute_integer("pollRate", UINT32),
        current_time=current,
        dst_end_time=r.optional_integer("dstEndTime", INT64),
        dst_offset=dst_offset,
        dst_start_time=r.optional_integer("dstStartTime", INT64),
        local_time=r.optional_integer("localTime", INT64),
        quality=r.optional_integer("quality", UINT8),
        tz_offset=tz_offset,
        missing=tuple(name for name in TIME_REQUIRED if r.child(name) is None),
    )


def _end_device(r: _Reader) -> EndDevice:
    return EndDevice(
        href=_href_of(r),
        lfdi=r.hex_text("lFDI", 40),
        sfdi=r.optional_integer("sFDI", UINT64),
        function_set_assignments_list_link=r.list_link("FunctionSetAssignmentsListLink"),
    )


def _function_set_assignments(r: _Reader) -> FunctionSetAssignments:
    return FunctionSetAssignments(
        href=_href_of(r),
        mrid=r.hex_text("mRID", 32),
        description=r.text("description"),
        time_link=r.link("TimeLink"),
        der_program_list_link=r.list_link("DERProgramListLink"),
    )


def _list(body: bytes, tag: str, item: str, href: str, read: Callable[[_Reader], T]) -> ListPage[T]:
    r = _root(body, tag, href)
    entries = []
    for index, element in enumerate(r.children(item)):
        entry = _Reader(element, r.ns, f"{r.where} {item}[{index}]", r.base)
        if not (element.get("href") or "").strip():
            raise entry.fail("has no href")
        entries.append(read(entry))
    count = r.attribute_integer("all", UINT32)
    results = r.attribute_integer("results", UINT32)
    return ListPage(
        href=_href_of(r),
        all=len(entries) if count is None else count,
        results=len(entries) if results is None else results,
        poll_rate=r.attribute_integer("pollRate", UINT32),
        items=tuple(entries),
    )


def parse_end_device_list(body: bytes, href: str = "") -> ListPage[EndDevice]:
    return _list(body, "EndDeviceList", "EndDevice", href, _end_device)


def parse_function_set_assignments_list(
    body: bytes, href: str = ""
) -> ListPage[FunctionSetAssignments]:
    return _list(
        body,
        "FunctionSetAssignmentsList",
        "FunctionSetAssignments",
        href,
        _function_set_assignments,
    )


# The generic readers, for function sets built above this package (the gateway's DER set).
Reader = _Reader
root_reader = _root
href_of = _href_of
parse_list = _list
