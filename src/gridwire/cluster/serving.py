"""What a worker answers on NATS: the operations a front routes to it, how taking an
outstation ended, ``status``, and its events while some front has listeners (D152, D156).

A routed operation arrives as ``{"message": {id, op, outstation, params}, "expires": T,
"epoch": E}`` (T in Unix seconds, E the worker epoch the front found in the lease). The
worker refuses, with nothing done, an operation that arrives after T (its front has
answered already), or routed under another epoch than its own now, or for an outstation it
does not hold (answer marked ``"moved": true``: the front may look the holder up again). Before an
operation that commands it confirms its lease's fencing token
(:meth:`gridwire.cluster.holdings.Holdings.confirm`); then its own dispatcher runs it, with
its own ``--allow-control`` gate."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from pydantic import ValidationError

from gridwire.cluster.store import outstation_key
from gridwire.cluster.worker import Worker
from gridwire.errors import OperationError
from gridwire.master.records import Status
from gridwire.operations.dispatch import Dispatcher, error_body
from gridwire.operations.encoding import EventEncoder, dumps, encode

log = logging.getLogger("gridwire.cluster")

WANT_EVERY = 1.0
"""How often a front with listeners says so; a worker forwards events for 3 times that."""
EVENT_BATCH = 256


class WorkerServer:
    """The worker's subscriptions."""

    def __init__(self, nc: Client, worker: Worker, dispatcher: Dispatcher) -> None:
        self.nc = nc
        self.worker = worker
        self.dispatcher = dispatcher
        self.encoder = EventEncoder()
        self._subs: list[Subscription] = []
        self._want_until = 0.0
        self._forwarding: asyncio.Task[None] | None = None
        self._pending: set[str] = set()
        """The routed operations being carried out here, by the id the front gave each
        (D241): answered once the answer has been handed to the connection."""

    async def start(self) -> None:
        subjects, wid = self.worker.subjects, self.worker.id
        self._subs = [
            await self.nc.subscribe(subjects.op(wid), cb=self._op_arrived),
            await self.nc.subscribe(subjects.added(wid), cb=self._spawning(self._added)),
            await self.nc.subscribe(subjects.status, cb=self._spawning(self._status)),
            await self.nc.subscribe(subjects.status_of(wid), cb=self._spawning(self._status_page)),
            await self.nc.subscribe(subjects.want, cb=self._want),
            await self.nc.subscribe(subjects.pending(wid), cb=self._pending_asked),
        ]

    async def close(self) -> None:
        for sub in self._subs:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        if self._forwarding is not None:
            self._forwarding.cancel()

    def _spawning(self, handler: Any) -> Any:
        async def callback(msg: Msg) -> None:
            self.worker.spawn(handler(msg))  # one slow operation holds up no other

        return callback

    async def _pending_asked(self, msg: Msg) -> None:
        """Whether the operation with the id asked is still being carried out here."""
        rid = msg.data.decode(errors="replace")
        await msg.respond(b"true" if rid in self._pending else b"false")

    async def _op_arrived(self, msg: Msg) -> None:
        """A routed operation: its id counted as pending at once, in arrival order (a
        question about it, sent later on the same connection, is handled after this)."""
        try:
            request = orjson.loads(msg.data)
        except orjson.JSONDecodeError:
            request = None
        rid = request.get("rid") if isinstance(request, dict) else None
        if isinstance(rid, str):
            self._pending.add(rid)
        self.worker.spawn(self._op(msg, request, rid))  # one slow operation holds up no other

    async def _op(self, msg: Msg, request: Any, rid: str | None) -> None:
        try:
            try:
                message, expires = request["message"], float(request["expires"])
                epoch = int(request["epoch"])
            except (KeyError, TypeError, ValueError):
                text = "worker: a routed operation is malformed"
                await msg.respond(error_body("request", text))
                return
            await self._carry_out(msg, message, expires, epoch)
        finally:
            if rid is not None:
                self._pending.discard(rid)

    async def _carry_out(
        self, msg: Msg, message: dict[str, Any], expires: float, epoch: int
    ) -> None:
        ident = message.get("id")
        if time.time() > expires:
            text = "the operation reached the worker after its time: nothing was done"
            await msg.respond(error_body("connection", text, ident))
            return
        name = message.get("outstation")
        lease = self.worker.lease
        if (
            not isinstance(name, str)
            or not self.worker.holdings.holds(name)
            or epoch != lease.epoch
            or not lease.valid()
        ):
            # Routed under a lease this worker does not hold now (lapsed, paused, taken
            # again under a new epoch): nothing is done, whatever it asks.
            await msg.respond(_moved(name, self.worker.id, ident))
            return
        if self._commands(message):
            try:
                await self.worker.holdings.confirm(name)
            except OperationError as exc:
                await msg.respond(error_body(exc.kind, str(exc), ident))
                return
        answer = await self.dispatcher.message(message)
        if message.get("op") == "remove" and answer.ok:
            # Forgotten, its lease entry kept (naming this live worker, so nobody takes it)
            # until the front deletes the settings and then the lease.
            self.worker.holdings.forget(outstation_key(name))
        await msg.respond(answer.body)

    def _commands(self, message: dict[str, Any]) -> bool:
        """Whether the message, as its operation reads it, commands (when it does not
        validate, the dispatcher says why and nothing runs)."""
        operation = self.dispatcher.table.get(str(message.get("op")))
        if operation is None:
            return False
        params = {**(message.get("params") or {}), "outstation": message.get("outstation")}
        try:
            return operation.commands_with(operation.params.model_validate(params, strict=True))
        except (ValidationError, TypeError):
            return False

    async def _added(self, msg: Msg) -> None:
        """How taking an outstation ended (waits for it up to the time asked)."""
        try:
            request = orjson.loads(msg.data)
            key, wait = outstation_key(str(request["outstation"])), float(request["wait"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            await msg.respond(error_body("request", "worker: malformed"))
            return
        held = self.worker.holdings.held.get(key)
        if held is None:
            await msg.respond(_moved(request["outstation"], self.worker.id, None))
            return
        try:
            body = await asyncio.wait_for(asyncio.shield(held.added), wait)
        except TimeoutError:
            body = error_body("connection", f"outstation {held.name} is still connecting")
        await msg.respond(body)

    async def _status(self, msg: Msg) -> None:
        """Every worker's summary and count (no entries): the front lays the pages out
        with them (D220)."""
        # A page past every entry: the tally (D208) and the total, no entry built. Asked
        # ``{"counts": true}`` (bench cluster), the worker's counts made now (D227).
        counts = None
        with contextlib.suppress(orjson.JSONDecodeError, AttributeError):
            if msg.data and orjson.loads(msg.data).get("counts") is True:
                counts = self.worker.counts()
        status = await self.worker.master.status_page(1 << 31, 1)
        await self._respond_status(msg, status, counts)

    async def _status_page(self, msg: Msg) -> None:
        """A page of this worker's entries, ``{"offset", "limit"}`` asked by the front."""
        try:
            request = orjson.loads(msg.data)
            offset, limit = int(request["offset"]), int(request["limit"])
            status = await self.worker.master.status_page(offset, limit)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, OperationError):
            await msg.respond(error_body("request", "worker: a status page is malformed"))
            return
        await self._respond_status(msg, status)

    async def _respond_status(
        self, msg: Msg, status: Status, counts: dict[str, object] | None = None
    ) -> None:
        info = dumps(
            {
                **(counts or {}),
                "worker": self.worker.id,
                "capacity": self.worker.capacity,
                "held": len(self.worker.holdings),
                "late_ms": round(self.worker.late_counted * 1000),
            }
        )
        while True:
            answer = b'{"worker":' + info + b',"status":' + await encode(status) + b"}"
            count = len(status.outstations)
            if len(answer) <= self.nc.max_payload or count == 0:
                break
            # Over NATS's max_payload (nats-py would raise MaxPayloadError, unseen): the
            # entries that fit; the front asks for the rest from where this page ends.
            status.outstations = status.outstations[: count * self.nc.max_payload // len(answer)]
            status.next = status.offset + len(status.outstations)
        if len(answer) > self.nc.max_payload:
            log.warning(
                "worker %s: a status without entries (%d octets) is over NATS's max_payload "
                "(%d): not sent",
                self.worker.id,
                len(answer),
                self.nc.max_payload,
            )
            return
        await msg.respond(answer)

    async def _want(self, msg: Msg) -> None:
        self._want_until = time.monotonic() + 3 * WANT_EVERY
        if self._forwarding is None or self._forwarding.done():
            self._forwarding = asyncio.create_task(self._forward())

    async def _forward(self) -> None:
        """Publish the master's updates (batched, one JSON line each) while wanted."""
        try:
            await self._forwarding_updates()
        except Exception:
            log.exception("worker %s: forwarding events failed", self.worker.id)

    async def _forwarding_updates(self) -> None:
        subject = self.worker.subjects.events(self.worker.id)
        subscriber = self.worker.master.bus.subscribe()
        try:
            while time.monotonic() < self._want_until:
                try:
                    first = await asyncio.wait_for(subscriber.get(), WANT_EVERY)
                except TimeoutError:
                    continue
                lines = [await self._line(first)]
                while len(lines) < EVENT_BATCH:
                    update = subscriber.get_nowait()
                    if update is None:
                        break
                    lines.append(await self._line(update))
                await self.nc.publish(subject, b"\n".join(lines))
        finally:
            subscriber.close()

    async def _line(self, update: tuple[str, dict[str, Any]]) -> bytes:
        event, data = update
        return b'{"event":' + dumps(event) + b',"data":' + await self.encoder.data(data) + b"}"


def _moved(name: object, worker: str, ident: object) -> bytes:
    text = f"outstation {name} is not held by worker {worker}: nothing was done"
    body = {
        "id": ident,
        "ok": False,
        "moved": True,
        "error": {"kind": "connection", "message": text},
    }
    return orjson.dumps(body)
