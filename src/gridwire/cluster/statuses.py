"""A cluster ``status`` in pages (D220): what one process answers (D149), across workers.

The front asks every worker for its summary and count (``<prefix>.status``: no entries, a
few hundred octets each), lays the workers out by worker id, maps the page asked,
``[offset, offset + limit)``, onto each worker's own offset and limit, and asks only the
workers that hold entries of the page for their slices (``<prefix>.status.<worker>``), at
most :data:`CHUNK` entries a request: a reply stays well under NATS's ``max_payload``, and a
worker whose slice is still over it answers the entries that fit, the front asking for the
rest from there. ``total``, ``next`` and ``summary`` are the cluster's. A worker that does
not answer within :data:`STATUS_WAIT` (its count, or any request for its slice) is named
in ``not_answered``."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

import nats.errors
import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg

from gridwire.cluster.store import Subjects
from gridwire.master.status_pages import next_offset

STATUS_WAIT = 5.0
"""Seconds ``status`` waits for a worker's count, and for each part of its slice."""
CHUNK = 500
"""Entries asked of a worker in one request at most (a page of one process's default)."""


@dataclass(slots=True)
class Part:
    """One worker's share of a cluster ``status``."""

    worker: str
    total: int
    status: dict[str, Any]
    info: dict[str, Any]
    entries: list[dict[str, Any]] = field(default_factory=list)
    answered: bool = True


def slices(totals: list[int], offset: int, limit: int) -> list[tuple[int, int, int]]:
    """``(index, offset, count)`` of each worker's share of ``[offset, offset + limit)``,
    the workers laid out one after the other with ``totals`` entries each."""
    shares = []
    start = 0
    for index, total in enumerate(totals):
        first = max(offset, start)
        last = min(offset + limit, start + total)
        if first < last:
            shares.append((index, first - start, last - first))
        start += total
    return shares


class Gatherer:
    """A cluster ``status``: the workers' counts, then the page's entries."""

    def __init__(self, nc: Client, subjects: Subjects) -> None:
        self.nc = nc
        self.subjects = subjects

    async def page(self, expected: set[str], offset: int, limit: int) -> list[Part]:
        """Each answering worker's share (by worker id), its entries of the page filled."""
        counts = await self.counts(expected)
        parts = []
        for worker, data in sorted(counts.items()):
            status = data.get("status", {})
            info = data.get("worker", {})
            parts.append(Part(worker, int(status.get("total", 0)), status, info))
        shares = slices([p.total for p in parts], offset, limit)
        await asyncio.gather(*(self._fill(parts[i], first, count) for i, first, count in shares))
        return parts

    async def counts(self, expected: set[str]) -> dict[str, dict[str, Any]]:
        """The workers' summaries and counts that came within STATUS_WAIT (all of
        ``expected``, or whoever answers in half of it when none is known to be live)."""
        answers: dict[str, dict[str, Any]] = {}
        complete = asyncio.Event()

        async def answered(msg: Msg) -> None:
            try:
                data = orjson.loads(msg.data)
                answers[str(data["worker"]["worker"])] = data
            except (orjson.JSONDecodeError, KeyError, TypeError):
                return
            if expected <= set(answers):
                complete.set()

        inbox = self.nc.new_inbox()
        sub = await self.nc.subscribe(inbox, cb=answered)
        try:
            await self.nc.publish(self.subjects.status, b"", reply=inbox)
            if expected:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(complete.wait(), STATUS_WAIT)
            else:  # none known to be live (or the bucket unreadable): whoever answers soon
                await asyncio.sleep(STATUS_WAIT / 2)
        finally:
            await sub.unsubscribe()
        return answers

    async def _fill(self, part: Part, first: int, count: int) -> None:
        """``count`` entries of ``part``'s worker from its ``first``, CHUNK at most a
        request; ``answered`` false when a request had no answer in time."""
        subject = self.subjects.status_of(part.worker)
        while len(part.entries) < count:
            ask = {
                "offset": first + len(part.entries),
                "limit": min(CHUNK, count - len(part.entries)),
            }
            try:
                reply = await self.nc.request(subject, orjson.dumps(ask), timeout=STATUS_WAIT)
                got = orjson.loads(reply.data)["status"]["outstations"]
            except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                part.answered = False
                return
            except (orjson.JSONDecodeError, KeyError, TypeError):
                return  # an error (its slice malformed): what came is what it holds
            if not isinstance(got, list) or not got:
                return  # it holds fewer now than it counted
            part.entries.extend(got)


def cluster_status(parts: list[Part], offset: int, limit: int) -> dict[str, Any]:
    """``outstations``, ``total``, ``offset``, ``next``, ``summary`` and ``workers`` (each
    worker's count and its names on this page) from the workers' parts."""
    total = sum(p.total for p in parts)
    summary: dict[str, int] = {}
    for part in parts:
        for state, n in (part.status.get("summary") or {}).items():
            summary[state] = summary.get(state, 0) + int(n)
    workers = [
        {
            "worker": p.worker,
            "held": p.total,
            "outstations": [e.get("name") for e in p.entries],
            "capacity": p.info.get("capacity"),
            "late_ms": p.info.get("late_ms"),
            "allow_control": p.status.get("allow_control"),
        }
        for p in parts
    ]
    return {
        "outstations": [e for p in parts for e in p.entries],
        "total": total,
        "offset": offset,
        "next": next_offset(offset, limit, total),
        "summary": summary,
        "workers": workers,
    }
