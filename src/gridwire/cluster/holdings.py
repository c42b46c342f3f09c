"""What a worker holds: outstations taken under leases, their fencing tokens, and the fence
each commanding request passes (D154-D156).

An outstation's lease is its entry in the leases bucket, ``{"worker", "epoch"}``, written by
compare-and-set; it is valid while the worker's own entry lives with that epoch. The
revision at which the worker wrote it is the *fencing token*: before an operation that
commands, the worker reads the entry again and goes on only if its revision is still the
token (:meth:`Holdings.confirm`); and right before each commanding request is written, the
wire asks :meth:`Holdings.fence`, which needs no network: the worker's lease is within its
local deadline and the outstation is still held. Either failing drops the connection."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import orjson
from nats.js.errors import KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

from gridwire.cluster.lease import WorkerLease
from gridwire.cluster.store import outstation_key
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import ConnectionFailed

log = logging.getLogger("gridwire.cluster")

LEASE_LAPSED = "the worker's lease on outstation {name} lapsed: nothing commanding was sent"


@dataclass(slots=True)
class Held:
    name: str
    token: int
    epoch: int
    """The worker's epoch it was taken under: it is held only while that epoch lasts."""
    added: asyncio.Future[bytes] = field(default_factory=asyncio.Future)
    """The envelope (JSON) of how taking it ended: its status once connected, or the error."""


class Holdings:
    """The outstations this worker holds, by key."""

    def __init__(self, leases: KeyValue, lease: WorkerLease, drop: Callable[[str], None]) -> None:
        self.leases = leases
        self.lease = lease
        self.held: dict[str, Held] = {}
        self._drop = drop

    def __len__(self) -> int:
        return len(self.held)

    def holds(self, name: str) -> bool:
        return outstation_key(name) in self.held

    async def take(self, key: str, name: str, revision: int | None) -> Held | None:
        """Take ``key`` by compare-and-set: over the entry at ``revision`` (a lapsed lease),
        or as a new entry (None). None when another worker was quicker."""
        epoch = self.lease.epoch
        body = orjson.dumps({"worker": self.lease.worker, "epoch": epoch})
        try:
            if revision is None:
                token = await self.leases.create(key, body)
            else:
                token = await self.leases.update(key, body, last=revision)
        except (KeyWrongLastSequenceError, NotFoundError):
            return None
        held = Held(name, token, epoch)
        self.held[key] = held
        return held

    async def release(self, key: str) -> None:
        """Give ``key`` up (its lease entry deleted if it is still ours)."""
        held = self.held.pop(key, None)
        if held is None:
            return
        with contextlib.suppress(KeyWrongLastSequenceError, NotFoundError):
            await self.leases.delete(key, last=held.token)

    def forget(self, key: str) -> Held | None:
        """The lease is not ours any more (lapsed or taken): forget it, touch nothing."""
        return self.held.pop(key, None)

    def fence(self, name: str) -> Callable[[FunctionCode], None]:
        """The wire's fence for outstation ``name``."""
        key = outstation_key(name)

        def check(function: FunctionCode) -> None:
            held, lease = self.held.get(key), self.lease
            ours = held is not None and held.name == name and held.epoch == lease.epoch
            if ours and lease.valid():
                return
            log.warning("%s: %s refused", name, function.name)
            self._drop(name)
            raise ConnectionFailed(LEASE_LAPSED.format(name=name))

        return check

    async def confirm(self, name: str) -> None:
        """The fencing token checked against the leases bucket before an operation that
        commands; ConnectionFailed (the outstation dropped) when it is not ours any more."""
        key = outstation_key(name)
        held = self.held.get(key)
        if held is None:
            raise ConnectionFailed(f"outstation {name} is not held by this worker")
        try:
            entry = await self.leases.get(key)
            current = entry.revision
        except NotFoundError:
            current = None
        except Exception as exc:  # the cluster cannot be asked: send nothing, keep it
            raise ConnectionFailed(
                f"outstation {name}: its lease cannot be confirmed ({exc}); nothing was sent"
            ) from None
        if current != held.token or not self.lease.valid() or held.epoch != self.lease.epoch:
            self.forget(key)
            self._drop(name)
            raise ConnectionFailed(LEASE_LAPSED.format(name=name))
