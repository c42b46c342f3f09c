"""The head-end clock reading that ``GET /api/v1/time`` answers, computed from the timebase's
cached offset: no request goes upstream to make one.

Two shapes, with the same keys in the same order: :class:`TimeReading` once any Time resource
has been observed (the body of a 200, typed as the contract's table types it) and
:class:`TimeUnavailable` before that (the body of the 503: ``source`` ``unavailable`` and every
field derived from an observation null; ``timebase_enabled`` is a setting, not derived, and is
still reported). Their field types are the OpenAPI schemas of the two answers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from gridwire.sep2.timebase import Timebase


def round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


@dataclass(frozen=True, slots=True)
class TimeReading:
    """The head-end's time now (a 200). Only ``current_time`` and ``source`` are guaranteed by
    the contract; here every field but the three time zone ones and ``quality`` is always a
    value. A Time resource that leaves out fields the schema requires gives nulls: no
    ``quality``, null quality; no ``tzOffset``, null tz_offset and local_time; no
    ``dstOffset``, null dst_offset (and local_time while daylight saving is in effect); no
    ``dstStartTime`` or ``dstEndTime``, dst_active false and local_time null unless dstOffset
    is 0."""

    current_time: Annotated[
        int,
        Field(description="Epoch seconds (UTC): the observed offset applied to the local clock"),
    ]
    source: Literal["server"]
    local_time: Annotated[
        int | None,
        Field(
            description="current_time with the server's tzOffset and (when dst_active) "
            "dstOffset; null while no Time resource is held, for example during rediscovery, "
            "and when the server left out a field it needs (tzOffset; dstStartTime or "
            "dstEndTime, unless dstOffset is 0; dstOffset while daylight saving is in effect)"
        ),
    ]
    tz_offset: Annotated[
        int | None,
        Field(description="Seconds; null while no Time resource is held or the server left it out"),
    ]
    dst_offset: Annotated[
        int | None,
        Field(description="Seconds; null while no Time resource is held or the server left it out"),
    ]
    dst_active: Annotated[
        bool,
        Field(
            description="Daylight saving is in effect by the held Time resource's own "
            "dstStartTime/dstEndTime; false while none is held or either date is missing"
        ),
    ]
    quality: Annotated[
        int | None,
        Field(
            description="The server's claim about its time source, carried through unchanged: "
            "3 external authoritative (NTP), larger weaker, 7 intentionally uncoordinated; "
            "null when the server left it out"
        ),
    ]
    offset_seconds: Annotated[float, Field(description="Head-end clock minus local clock")]
    age_seconds: Annotated[
        float, Field(description="Age of the offset's measurement (monotonic clock)")
    ]
    href: Annotated[str, Field(description="Path of the Time resource")]
    timebase_enabled: Annotated[
        bool, Field(description="Whether this client applies the offset to its own scheduling")
    ]

    @property
    def available(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class TimeUnavailable:
    """No Time resource observed yet (a 503): every derived field null."""

    current_time: None
    source: Literal["unavailable"]
    local_time: None
    tz_offset: None
    dst_offset: None
    dst_active: None
    quality: None
    offset_seconds: None
    age_seconds: None
    href: None
    timebase_enabled: bool

    @property
    def available(self) -> bool:
        return False


def time_reading(timebase: Timebase) -> TimeReading | TimeUnavailable:
    """The observed offset applied to the local clock now, with the server's own time zone
    fields while its Time resource is held (null otherwise, for example during rediscovery)."""
    held = timebase.held()
    if held is None:
        return TimeUnavailable(
            None, "unavailable", None, None, None, None, None, None, None, None, timebase.enabled
        )
    o = held.observation
    now = timebase.clock.wall() + o.offset_seconds
    local_time = tz_offset = dst_offset = None
    dst_active = False
    if held.holding:
        t = o.time
        dst_active = t.dst_active_at(now)
        tz_offset, dst_offset = t.tz_offset, t.dst_offset
        local_offset = t.local_offset_at(now)
        local_time = None if local_offset is None else round_half_up(now + local_offset)
    return TimeReading(
        current_time=round_half_up(now),
        source="server",
        local_time=local_time,
        tz_offset=tz_offset,
        dst_offset=dst_offset,
        dst_active=dst_active,
        quality=o.quality,
        offset_seconds=round(o.offset_seconds, 3),
        age_seconds=round(o.age(timebase.clock.monotonic()), 3),
        href=o.href,
        timebase_enabled=timebase.enabled,
    )
