"""A bucket's current entries, kept by a watcher (re-made on any failure, and when its
consumer, asked about every RESYNC seconds, is gone: a consumer lost with a NATS server is
found again without reading every entry again each time, D228)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import nats.errors
from nats.js.kv import KeyValue

log = logging.getLogger("gridwire.cluster")

RESYNC = 30.0
"""Seconds between two questions to the server whether the watcher's consumer lives."""
Changed = Callable[[str, bytes | None], None]


class Mirror:
    """``entries``: key -> (value, revision) of every entry not deleted. ``synced`` is set
    once the first full reading ended. ``changed(key, value)`` (value None: deleted) is
    called for each change seen after that."""

    def __init__(self, kv: KeyValue, changed: Changed | None = None) -> None:
        self.kv = kv
        self.entries: dict[str, tuple[bytes, int]] = {}
        self.synced = asyncio.Event()
        self._changed = changed
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            try:
                await self._watch()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("watching bucket %s failed (%s); watching again", self.kv._name, exc)
                await asyncio.sleep(1.0)

    async def _watch(self) -> None:
        watcher = await self.kv.watchall()
        fresh: dict[str, tuple[bytes, int]] = {}
        initial = True
        loop = asyncio.get_running_loop()
        ask_at = loop.time() + RESYNC
        try:
            while True:
                if loop.time() >= ask_at:
                    if not await self._lives(watcher):
                        return
                    ask_at = loop.time() + RESYNC
                try:
                    entry = await watcher.updates(timeout=1.0)  # type: ignore[no-untyped-call]
                except nats.errors.TimeoutError:
                    continue
                if entry is None:
                    if initial:
                        self._replace(fresh)
                        initial = False
                    continue
                target = fresh if initial else self.entries
                if entry.operation in ("DEL", "PURGE") or entry.value is None:
                    target.pop(entry.key, None)
                    value = None
                else:
                    target[entry.key] = (entry.value, entry.revision or 0)
                    value = entry.value
                if not initial and self._changed is not None:
                    self._changed(entry.key, value)
        finally:
            with contextlib.suppress(Exception):
                await watcher.stop()  # type: ignore[no-untyped-call]

    async def _lives(self, watcher: Any) -> bool:
        """Whether the watcher's consumer still lives on the server (its info comes)."""
        try:
            await asyncio.wait_for(watcher._sub.consumer_info(), RESYNC / 3)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("bucket %s: its watcher is lost (%s); watching again", self.kv._name, exc)
            return False
        return True

    def _replace(self, fresh: dict[str, tuple[bytes, int]]) -> None:
        old, self.entries = self.entries, fresh
        if self._changed is not None and self.synced.is_set():
            for key in old.keys() - fresh.keys():
                self._changed(key, None)
            for key, (value, revision) in fresh.items():
                if old.get(key, (b"", 0))[1] != revision:
                    self._changed(key, value)
        self.synced.set()
