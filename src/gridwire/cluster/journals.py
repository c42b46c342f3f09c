"""Evaluations' restore journals kept in the cluster (D158): a worker copies each journal
file it writes to the journals bucket before the control it records is sent
(:data:`gridwire.evaluate.journal.JOURNAL_SINKS`), and writes the copy back into its own
state directory before it connects an outstation it takes. So when a worker dies in the
middle of an evaluation, the worker that takes the outstation finds the journal, refuses a
new evaluation until it is put back, and ``restore_evaluation`` puts back what the lost
worker's evaluation changed.

The key is the journal file's stem (``journal-<host>-<port>-<link>``): journals belong to
the outstation at that address, whatever it is called."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path
from typing import Any

from nats.js.errors import NotFoundError
from nats.js.kv import KeyValue

from gridwire.evaluate.journal import journal_path
from gridwire.master import OutstationSettings

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


def _write_file(path: Path, octets: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(octets)
    temporary.replace(path)
