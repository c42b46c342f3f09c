"""``status`` of many outstations (DESIGN D149): a page of them and a summary of them all.

A page lists ``limit`` outstations from ``offset``, in the order they were added; ``total``,
``next`` (the offset of the next page, None after the last) and ``summary`` (every outstation
counted by connection state) say what it leaves out. :func:`page` takes a turn of the event
loop whenever :data:`~gridwire.master.limits.STATUS_SLICE` seconds have passed, so a page of
10,000 outstations never holds the polls; it counts time, not entries, because on a loop busy
with polls every turn is long.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from gridwire.errors import BadParameter
from gridwire.master.limits import STATUS_SLICE
from gridwire.master.records import OutstationStatus, Status
from gridwire.master.session import Session

_STEP = 100  # sessions between two looks at the clock


def _summary() -> dict[str, int]:
    return dict.fromkeys(("connected", "connecting", "disconnected"), 0)


def every(allow_control: bool, sessions: Sequence[Session]) -> Status:
    """Every outstation at once (for a caller in this process)."""
    summary = _summary()
    for session in sessions:
        summary[session.state] += 1
    entries = [session.status() for session in sessions]
    return _status(allow_control, entries, len(sessions), 0, len(sessions), summary)


async def page(allow_control: bool, sessions: Sequence[Session], offset: int, limit: int) -> Status:
    """The page of ``limit`` outstations from ``offset`` and the summary of them all."""
    if offset < 0 or limit < 1:
        raise BadParameter(f"status: offset {offset} and limit {limit} must be 0+ and 1+")
    summary = _summary()
    entries: list[OutstationStatus] = []
    mark = time.perf_counter()
    for start in range(0, len(sessions), _STEP):
        if start and time.perf_counter() - mark > STATUS_SLICE:
            await asyncio.sleep(0)
            mark = time.perf_counter()
        for position, session in enumerate(sessions[start : start + _STEP], start):
            summary[session.state] += 1
            if offset <= position < offset + limit:
                entries.append(session.status())
    return _status(allow_control, entries, len(sessions), offset, limit, summary)


def _status(
    allow_control: bool,
    entries: list[OutstationStatus],
    total: int,
    offset: int,
    limit: int,
    summary: dict[str, int],
) -> Status:
    return Status(
        allow_control=allow_control,
        outstations=entries,
        total=total,
        offset=offset,
        next=offset + limit if offset + limit < total else None,
        summary=summary,
    )
