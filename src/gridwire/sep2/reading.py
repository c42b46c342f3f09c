"""The head-end clock reading that ``GET /api/v1/time`` answers, computed from the timebase's
cached offset: no request goes upstream to make one."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from gridwire.sep2.timebase import Timebase


def round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


@dataclass(frozen=True, slots=True)
class TimeReading:
    """The head-end's time now. Only ``current_time`` and ``source`` are guaranteed when the
    source is ``server``; with ``unavailable`` every derived field is null."""

    current_time: int | None
    source: Literal["server", "unavailable"]
    local_time: int | None
    tz_offset: int | None
    dst_offset: int | None
    dst_active: bool | None
    quality: int | None
    offset_seconds: float | None
    age_seconds: float | None
    href: str | None
    timebase_enabled: bool

    @property
    def available(self) -> bool:
        return self.source == "server"


def time_reading(timebase: Timebase) -> TimeReading:
    """The observed offset applied to the local clock now, with the server's own time zone
    fields while its Time resource is held (null otherwise, for example during rediscovery)."""
    held = timebase.held()
    if held is None:
        return TimeReading(
            None, "unavailable", None, None, None, None, None, None, None, None, timebase.enabled
        )
    o = held.observation
    now = timebase.clock.wall() + o.offset_seconds
    local_time = tz_offset = dst_offset = None
    dst_active = None
    if held.holding:
        t = o.time
        dst_active = t.dst_active_at(now)
        tz_offset, dst_offset = t.tz_offset, t.dst_offset
        local_time = round_half_up(now + t.tz_offset + (t.dst_offset if dst_active else 0))
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
