"""Evaluations' restore journals kept in the cluster (D158): a worker copies each journal
file it writes to the journals bucket before the control it records is sent
(:data:`gridwire.evaluate.journal.JOURNAL_SINKS`), and writes the copy back into its own
state directory before it connects an outstation it takes. So when a worker dies in the
middle of an evaluation, the worker that takes the outstation finds the journal, refuses a
new evaluation until it is put back, and ``restore_evaluation`` puts back what the lost
worker's evaluation changed.

The key is the journal file's stem (``journal-<host>-<port>-<link>``): journals belong to
the outstation at that address, whatever it is called.

A worker with ``--allow-control`` that finds such a journal puts it back by itself
(:meth:`ClusterJournals.put_back`, D212): once the outstation is connected and the lease's
fencing token confirmed, as ``restore_evaluation`` would, and logs each point at WARNING.
A read-only worker puts nothing back; it logs that the journal is left."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from nats.js.errors import NotFoundError
from nats.js.kv import KeyValue

from gridwire.errors import Conflict, OperationError
from gridwire.evaluate.journal import journal_path, restore_journal
from gridwire.evaluate.runner import SETTLE_DEFAULT
from gridwire.master import Master, OutstationSettings

log = logging.getLogger("gridwire.cluster")

TRIES = 5
"""Times a worker tries to put back a journal it found, each once the outstation is connected."""
RETRY_EVERY = 1.0
_UNSAFE = re.compile(r"[^A-Za-z0-9_.=-]")


def journal_key(path: Path) -> str:
    return _UNSAFE.sub("_", path.stem)


class ClusterJournals:
    """The journals bucket, seen from one worker's state directory."""

    def __init__(self, kv: KeyValue, state_dir: Path) -> None:
        self.kv = kv
        self.state_dir = state_dir

    async def sink(self, path: Path, data: dict[str, Any] | None) -> None:
        """A journal written (or removed, None): the cluster's copy follows."""
        key = journal_key(path)
        if data is None:
            with contextlib.suppress(NotFoundError):
                await self.kv.delete(key)
            return
        await self.kv.put(key, json.dumps(data).encode())

    async def fetch(self, settings: OutstationSettings) -> Path | None:
        """The cluster's journal for the outstation written to this worker's state
        directory (the path), or None when the cluster keeps none."""
        path = journal_path(self.state_dir, settings)
        try:
            entry = await self.kv.get(journal_key(path))
        except NotFoundError:
            return None
        if entry.value is None:
            return None
        await asyncio.to_thread(_write_file, path, entry.value)
        return path

    async def put_back(
        self,
        master: Master,
        name: str,
        held: Callable[[], bool],
        confirm: Callable[[str], Awaitable[None]],
    ) -> bool:
        """Put back what a lost worker's evaluation of ``name`` changed (the journal
        :meth:`fetch` wrote here), while ``held()``: each try once the outstation is
        connected and ``confirm`` (the fencing token) passed. Whether everything is back."""
        if not master.allow_control:
            log.warning(
                "outstation %s: a lost worker's evaluation left a restore journal; this worker "
                "is read-only (no --allow-control) and puts nothing back",
                name,
            )
            return False
        for _ in range(TRIES):
            if not await _connected(master, name, held):
                return False
            try:
                await confirm(name)
                points = await restore_journal(master, name, self.state_dir, SETTLE_DEFAULT)
            except Conflict:  # put back meanwhile (restore_evaluation): nothing is left
                return True
            except OperationError as exc:  # the connection or the lease lost: try again
                log.warning("outstation %s: the restore journal not put back now: %s", name, exc)
                await asyncio.sleep(RETRY_EVERY)
                continue
            restored = all(p["restored"] for p in points)
            log.warning(
                "outstation %s: put back what a lost worker's evaluation changed (the cluster's "
                "restore journal): %s%s",
                name,
                ", ".join(_said(p) for p in points) or "nothing differed",
                "" if restored else "; what is left changed stays in the journal",
            )
            return restored
        return False


async def _connected(master: Master, name: str, held: Callable[[], bool]) -> bool:
    """Once ``name`` is connected (True), or no longer held (False)."""
    while held():
        try:
            if master.session(name).connected:
                return True
        except OperationError:  # not added (yet, or any more)
            pass
        await asyncio.sleep(0.25)
    return False


def _said(point: dict[str, object]) -> str:
    if point["restored"]:
        return f"{point['point']} {point['as_found']!r} restored"
    return f"{point['point']} {point['now']!r} left changed (as found {point['as_found']!r})"


def _write_file(path: Path, octets: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(octets)
    temporary.replace(path)
