"""Typed models of the IEEE 2030.5 resources the client reads (names as in the standard's
schema, in snake case). Only the fields the client uses are kept; a resource's other elements
are read past. Times are epoch seconds (TimeType), offsets signed seconds (TimeOffsetType)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

# The schema's default pollRate (seconds), for a resource that carries none.
DEFAULT_POLL_RATE = 900


@dataclass(frozen=True, slots=True)
class Link:
    href: str


@dataclass(frozen=True, slots=True)
class ListLink:
    href: str
    all: int | None = None  # number of entries the list holds, when the link says


@dataclass(frozen=True, slots=True)
class DeviceCapability:
    href: str
    poll_rate: int | None  # as given; None when absent (the schema default then applies)
    time_link: Link | None
    end_device_list_link: ListLink | None
    self_device_link: Link | None
    der_program_list_link: ListLink | None

    @property
    def effective_poll_rate(self) -> int:
        return DEFAULT_POLL_RATE if self.poll_rate is None else self.poll_rate


@dataclass(frozen=True, slots=True)
class EndDevice:
    href: str
    lfdi: str | None
    sfdi: int | None
    function_set_assignments_list_link: ListLink | None


@dataclass(frozen=True, slots=True)
class FunctionSetAssignments:
    href: str
    mrid: str | None
    description: str | None
    time_link: Link | None
    der_program_list_link: ListLink | None


@dataclass(frozen=True, slots=True)
class ListPage(Generic[T]):
    """One page of a list resource: ``all`` entries in the list, ``results`` in this page."""

    href: str
    all: int
    results: int
    poll_rate: int | None
    items: tuple[T, ...]


@dataclass(frozen=True, slots=True)
class Time:
    """A Time resource. The schema requires every field but localTime; real head-ends leave
    some out (one sends no quality and no dstStartTime), so all but currentTime may be None,
    and ``missing`` names (in the schema's spelling) the required ones that were absent."""

    href: str
    poll_rate: int | None  # as given; None when absent (the schema default then applies)
    current_time: int
    dst_end_time: int | None
    dst_offset: int | None
    dst_start_time: int | None
    local_time: int | None
    quality: int | None
    tz_offset: int | None
    missing: tuple[str, ...] = ()

    @property
    def effective_poll_rate(self) -> int:
        return DEFAULT_POLL_RATE if self.poll_rate is None else self.poll_rate

    def dst_active_at(self, when: float) -> bool:
        """Whether daylight saving is in effect at epoch second ``when``: from dstStartTime
        (inclusive) to dstEndTime (exclusive); a start after the end (the southern hemisphere's
        calendar year) means in effect outside that span. False when either is missing."""
        start, end = self.dst_start_time, self.dst_end_time
        if start is None or end is None or start == end:
            return False
        if start < end:
            return start <= when < end
        return when >= start or when < end

    def local_offset_at(self, when: float) -> int | None:
        """Seconds from UTC to the head-end's local time at ``when``: tzOffset, plus dstOffset
        while daylight saving is in effect. None when the fields to tell are missing: no
        tzOffset; or a dstOffset other than 0 without both daylight saving dates; or daylight
        saving in effect and no dstOffset."""
        tz, dst = self.tz_offset, self.dst_offset
        if tz is None:
            return None
        if dst == 0:
            return tz
        if self.dst_start_time is None or self.dst_end_time is None:
            return None
        if not self.dst_active_at(when):
            return tz
        return None if dst is None else tz + dst
