"""Discovery: from DeviceCapability to the Time resources that apply to this device.

DeviceCapability (``dcap_path``) gives the global TimeLink and the EndDeviceList; the
EndDeviceList (paged) holds this device, found by its LFDI; its FunctionSetAssignmentsList
(paged) gives each FSA, and each FSA's own TimeLink is followed whether or not the FSA also
lists DER programs. Each body is parsed against the URL it was requested at, so its links
resolve as RFC 3986 says. What discovery cannot read without failing (a list link that
answers an error status) is told to ``notice`` with the URL requested, so status can show it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from gridwire.sep2.errors import DiscoveryError, HttpStatusError
from gridwire.sep2.identity import DeviceIdentity
from gridwire.sep2.limits import MAX_PAGES
from gridwire.sep2.parsing import (
    parse_device_capability,
    parse_end_device_list,
    parse_function_set_assignments_list,
)
from gridwire.sep2.resources import (
    DeviceCapability,
    EndDevice,
    FunctionSetAssignments,
    ListLink,
    ListPage,
)
from gridwire.sep2.timebase import FsaLink
from gridwire.sep2.transport import Fetched

log = logging.getLogger("gridwire.sep2.discovery")

# A problem that does not stop discovery: (key, one line) to report, (key, None) once solved.
Notice = Callable[[str, str | None], None]
EDL_NOTICE = "EndDeviceList"
FSA_LIST_NOTICE = "FunctionSetAssignmentsList"


def _unnoticed(key: str, message: str | None) -> None:
    if message is not None:
        log.info("%s", message)


class _Listed(Protocol):
    @property
    def href(self) -> str: ...


T = TypeVar("T", bound=_Listed)  # an entry of a list resource (any function set's)


class Getter(Protocol):
    async def get(self, href: str, params: dict[str, int | str] | None = None) -> Fetched: ...


@dataclass(frozen=True, slots=True)
class Structure:
    """What discovery found. ``end_device`` is None while the head-end does not list this
    device; ``fsas`` is empty when it has none (or no FSA list)."""

    dcap: DeviceCapability
    end_device: EndDevice | None
    fsas: tuple[FunctionSetAssignments, ...]

    @property
    def global_time_href(self) -> str | None:
        return self.dcap.time_link.href if self.dcap.time_link else None

    def fsa_links(self) -> list[FsaLink]:
        return [
            FsaLink(f.href, f.description, f.time_link.href if f.time_link else None)
            for f in self.fsas
        ]

    def dcap_shape(self) -> tuple[str | None, str | None]:
        """The links of DeviceCapability that discovery followed."""
        return dcap_shape(self.dcap)

    def fsa_shape(self) -> tuple[tuple[str, str | None], ...]:
        return fsa_shape(self.fsas)


def dcap_shape(dcap: DeviceCapability) -> tuple[str | None, str | None]:
    edl = dcap.end_device_list_link
    return (dcap.time_link.href if dcap.time_link else None, edl.href if edl else None)


def fsa_shape(fsas: tuple[FunctionSetAssignments, ...]) -> tuple[tuple[str, str | None], ...]:
    return tuple((f.href, f.time_link.href if f.time_link else None) for f in fsas)


async def fetch_device_capability(headend: Getter, path: str) -> DeviceCapability:
    fetched = await headend.get(path)
    if fetched.empty:
        raise DiscoveryError(f"DeviceCapability {fetched.url} answered HTTP {fetched.status}")
    return parse_device_capability(fetched.require_ok(), fetched.url)


async def read_list(
    headend: Getter,
    href: str,
    parse: Callable[[bytes, str], ListPage[T]],
    page_size: int,
    until: Callable[[T], bool] | None = None,
) -> tuple[T, ...]:
    """Every entry of the list at ``href``, a page (query ``s`` start, ``l`` limit) at a time;
    stops early at an entry ``until`` accepts. A page answered with any status but 200 raises
    :class:`HttpStatusError` naming the URL."""
    entries, _ = await read_list_rated(headend, href, parse, page_size, until)
    return entries


async def read_list_rated(
    headend: Getter,
    href: str,
    parse: Callable[[bytes, str], ListPage[T]],
    page_size: int,
    until: Callable[[T], bool] | None = None,
) -> tuple[tuple[T, ...], int | None]:
    """:func:`read_list`, with the pollRate the list's first page gives (None: none)."""
    entries: list[T] = []
    seen: set[str] = set()
    start = 0
    rate: int | None = None
    for number in range(MAX_PAGES):
        fetched = await headend.get(href, {"s": start, "l": page_size})
        page = parse(fetched.require_ok(), fetched.url)
        rate = page.poll_rate if number == 0 else rate
        fresh = [e for e in page.items if e.href not in seen]
        entries.extend(fresh)
        seen.update(e.href for e in fresh)
        if until is not None and any(until(e) for e in fresh):
            break
        start += len(page.items)
        if not fresh or start >= page.all:
            break
    return tuple(entries), rate


async def find_end_device(
    headend: Getter,
    link: ListLink | None,
    identity: DeviceIdentity,
    page_size: int,
    notice: Notice = _unnoticed,
) -> EndDevice | None:
    """This device's EndDevice, matched by LFDI, or None when the list does not hold it or
    the head-end refuses to list it (HTTP error status: noticed)."""
    if link is None:
        return None
    try:
        entries = await read_list(
            headend,
            link.href,
            parse_end_device_list,
            page_size,
            until=lambda e: identity.matches_lfdi(e.lfdi),
        )
    except HttpStatusError as exc:
        # Head-ends answer an unknown device's request for the list with a 500 (not a 401).
        notice(EDL_NOTICE, f"EndDeviceList: {exc}; taking this device as not registered")
        return None
    notice(EDL_NOTICE, None)
    return next((e for e in entries if identity.matches_lfdi(e.lfdi)), None)


async def read_assignments(
    headend: Getter,
    end_device: EndDevice | None,
    page_size: int,
    notice: Notice = _unnoticed,
) -> tuple[FunctionSetAssignments, ...]:
    """This device's FSAs; none when it has no list, or its list is not there (404, 410 or
    204: noticed). Any other error status fails."""
    link = end_device.function_set_assignments_list_link if end_device else None
    if link is None:
        notice(FSA_LIST_NOTICE, None)
        return ()
    try:
        found = await read_list(headend, link.href, parse_function_set_assignments_list, page_size)
    except HttpStatusError as exc:
        if exc.status not in (204, 404, 410):
            raise
        notice(FSA_LIST_NOTICE, f"FunctionSetAssignmentsList: {exc}; taking it as empty")
        return ()
    notice(FSA_LIST_NOTICE, None)
    return found


async def discover(
    headend: Getter,
    dcap_path: str,
    identity: DeviceIdentity,
    page_size: int,
    notice: Notice = _unnoticed,
) -> Structure:
    """Walk the head-end from DeviceCapability to this device's FSAs."""
    dcap = await fetch_device_capability(headend, dcap_path)
    edl = dcap.end_device_list_link
    end_device = await find_end_device(headend, edl, identity, page_size, notice)
    fsas = await read_assignments(headend, end_device, page_size, notice)
    return Structure(dcap, end_device, fsas)
