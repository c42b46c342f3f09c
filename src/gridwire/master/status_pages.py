"""``status`` of many outstations (DESIGN D149): a page of them and a summary of them all.

A page lists ``limit`` outstations from ``offset``, in the order they were added; ``total``,
``next`` (the offset of the next page, None after the last) and ``summary`` (every outstation
counted by connection state) say what it leaves out. The summary is a :func:`tally` the
master keeps as connections change (D208), so a page touches only its own outstations, never
all 10,000. :func:`page` takes a turn of the event loop whenever
:data:`~gridwire.master.limits.STATUS_SLICE` seconds have passed; it counts time, not
entries, because on a loop busy with polls every turn is long.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from gridwire.errors import BadParameter
from gridwire.master.limits import STATUS_SLICE
from gridwire.master.records import OutstationStatus, Status
from gridwire.master.session import Session

_STEP = 50  # entries between two looks at the clock


def _summary() -> dict[str, int]:
    return dict.fromkeys(("connected", "connecting", "disconnected"), 0)


def tally() -> dict[str, int]:
    """Outstations by connection state, kept by each session's connector as it changes
    (:meth:`~gridwire.master.connector.Connector.count_in`)."""
    return _summary()


def every(allow_control: bool, sessions: Sequence[Session]) -> Status:
    """Every outstation at once (for a caller in this process)."""
    summary = _summary()
    for session in sessions:
        summary[session.state] += 1
    entries = [session.status() for session in sessions]
    return _status(allow_control, entries, len(sessions), 0, len(sessions), summary)


async def page(
    allow_control: bool,
    sessions: Sequence[Session],
    offset: int,
    limit: int,
    summary: dict[str, int],
) -> Status:
    """The page of ``limit`` outstations from ``offset``, and ``summary`` (the tally)."""
    if offset < 0 or limit < 1:
        raise BadParameter(f"status: offset {offset} and limit {limit} must be 0+ and 1+")
    entries: list[OutstationStatus] = []
    mark = time.perf_counter()
    chosen = sessions[offset : offset + limit]
    for start in range(0, len(chosen), _STEP):
        if start and time.perf_counter() - mark > STATUS_SLICE:
            await asyncio.sleep(0)
            mark = time.perf_counter()
        entries.extend(session.status() for session in chosen[start : start + _STEP])
    return _status(allow_control, entries, len(sessions), offset, limit, dict(summary))


def next_offset(offset: int, limit: int, total: int) -> int | None:
    """The offset of the page after ``[offset, offset + limit)`` of ``total``; None after
    the last (one process's pages and a cluster's alike)."""
    return offset + limit if offset + limit < total else None


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
        next=next_offset(offset, limit, total),
        summary=summary,
    )
