"""``gridwire console|serve --cluster URL``: the same operations, OpenAPI and events over
every outstation of the cluster (D152, D156, D157).

The front runs the service's own dispatcher (:class:`ClusterDispatcher` subclasses
:class:`gridwire.operations.dispatch.Dispatcher`): parameters are validated, the front's
``--allow-control`` gate is applied and each command is logged exactly as in one process;
only carrying the operation out differs. ``add`` writes the outstation's settings to the
outstations bucket and answers once a worker took it and tried to connect; ``remove`` asks
the holder to remove it, then deletes its settings and its lease; ``status`` pages across
the workers (:mod:`gridwire.cluster.statuses`); an operation on one outstation goes to its worker
(:mod:`gridwire.cluster.routing`); the rest (``stop``, ``checks``...) run at the front. The
front's master holds no outstation: its event bus carries what the workers send."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import logging
from typing import Any

import nats.errors
import nats.js.errors
import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.errors import KeyWrongLastSequenceError, NotFoundError
from pydantic import BaseModel

from gridwire.cluster.asking import ATTEMPT, TRANSIENT, asked, created
from gridwire.cluster.lease import live_workers
from gridwire.cluster.mirror import Mirror
from gridwire.cluster.routing import Router
from gridwire.cluster.serving import WANT_EVERY
from gridwire.cluster.statuses import Gatherer, cluster_status
from gridwire.cluster.store import Buckets, Subjects, name_of_key, outstation_key
from gridwire.cluster.worker import holder_of
from gridwire.errors import Conflict, ConnectionFailed
from gridwire.master import OutstationSettings
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OperationTable
from gridwire.operations.dispatch import Answer, Dispatcher, error_answer, operation_error
from gridwire.operations.encoding import dumps
from gridwire.operations.params import StatusParams

log = logging.getLogger("gridwire.cluster")

LOCAL = frozenset({"stop", "checks"})
_raw: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("gridwire_cluster_raw")


def _routed(name: str, data: dict[str, Any]) -> bool:
    """Whether operation ``name`` is carried out beyond the front (``status`` and ``add``
    across the cluster, the rest at the worker holding the outstation named)."""
    if name in LOCAL:
        return False
    return name in ("status", "add") or data.get("outstation") is not None


class ClusterDispatcher(Dispatcher):
    """The service's dispatcher, carrying operations out across the cluster."""

    def __init__(
        self,
        table: OperationTable,
        context: Context,
        nc: Client,
        buckets: Buckets,
        subjects: Subjects,
        configs: Mirror,
        leases: Mirror,
    ) -> None:
        super().__init__(table, context)
        self.leases = leases
        self.nc = nc
        self.buckets = buckets
        self.subjects = subjects
        self.router = Router(nc, buckets, subjects)
        self.configs = configs

    async def _run(self, operation: Operation[Any], data: dict[str, Any], ident: Any) -> Answer:
        _raw.set(data)
        if operation.check is not None and _routed(operation.name, data):
            # The check needs the outstation (its point map), which lives at its worker: the
            # worker's own dispatcher checks it there before anything is sent (D213).
            operation = dataclasses.replace(operation, check=None)
        return await super()._run(operation, data, ident)

    async def _carry_out(
        self, operation: Operation[Any], params: BaseModel, ident: Any
    ) -> tuple[Answer, str | list[bytes | memoryview]]:
        name = operation.name
        outstation = getattr(params, "outstation", None)
        if not _routed(name, {"outstation": outstation}):
            return await super()._carry_out(operation, params, ident)
        try:
            if name == "status":
                assert isinstance(params, StatusParams)
                body = await self.status(ident, params.offset, params.limit)
            elif name == "add":
                assert isinstance(params, OutstationSettings)
                body = await self.add(params, ident)
            else:
                raw = {k: v for k, v in _raw.get({}).items() if k != "outstation"}
                message = {"id": ident, "op": name, "outstation": outstation, "params": raw}
                commands = operation.commands_with(params)
                body = await self.router.route(message, commands)
                if name == "remove":
                    await self._forget(str(outstation), body)
        except (nats.errors.Error, nats.js.errors.Error, OSError) as exc:
            # Asking the cluster failed before anything was sent (the routing answers for
            # what fails once an operation is out).
            text = f"{name}: the cluster could not be asked ({exc or type(exc).__name__})"
            answer = error_answer(ConnectionFailed(text + ": nothing was sent"), ident)
            return answer, _result_text(answer.body)
        except Exception as exc:
            answer = error_answer(operation_error(name, exc), ident)
            return answer, _result_text(answer.body)
        return _answer(body), _result_text(body)

    async def add(self, settings: OutstationSettings, ident: Any) -> bytes:
        key = outstation_key(settings.name)
        try:
            await created(self.buckets.outstations, key, settings.model_dump_json().encode())
        except KeyWrongLastSequenceError:
            raise Conflict(f"outstation {settings.name!r} was already added") from None
        except TRANSIENT as exc:  # the last attempt's answer lost: it may have been stored
            raise ConnectionFailed(
                f"add: the cluster did not answer ({exc or type(exc).__name__}): outstation "
                f"{settings.name} may or may not have been added (status lists it if it was)"
            ) from None
        wait = self.router.bound() + (settings.response_timeout or 5.0) + 5.0
        body = await self.router.added(settings.name, wait)
        return _with_id(body, ident)

    async def _forget(self, name: str, body: bytes) -> None:
        """After ``remove`` answered: its settings and its lease deleted."""
        if not _answer(body).ok:
            return
        key = outstation_key(name)
        for kv in (self.buckets.outstations, self.buckets.leases):
            with contextlib.suppress(NotFoundError):
                await kv.delete(key)

    async def status(self, ident: Any, offset: int, limit: int) -> bytes:
        """A page of the cluster's outstations, as one process pages them (D220)."""
        try:
            live = await asked(lambda: live_workers(self.buckets.workers), 2 * ATTEMPT)
        except (nats.errors.Error, nats.js.errors.Error):
            # The workers bucket cannot be read now (a NATS node lost, its copies electing a
            # leader): those that answer are all that is known.
            live = {}
        parts = await Gatherer(self.nc, self.subjects).page(set(live), offset, limit)
        answered = {p.worker for p in parts if p.answered}
        seen = {str(e.get("name")) for p in parts for e in p.entries}
        result = {
            "allow_control": self.context.allow_control,
            **cluster_status(parts, offset, limit),
            "not_answered": sorted((set(live) | {p.worker for p in parts}) - answered),
            "unassigned": self._unassigned(live, seen),
        }
        return b'{"id":' + dumps(ident) + b',"ok":true,"result":' + dumps(result) + b"}"

    def _unassigned(
        self, live: dict[str, tuple[int, dict[str, object]]], seen: set[str]
    ) -> list[str]:
        """The outstations added that no live worker holds (by the leases bucket)."""
        names = []
        for key in self.configs.entries:
            entry = self.leases.entries.get(key)
            holder = holder_of(entry[0]) if entry is not None else None
            if holder is None or live.get(holder[0], (None,))[0] != holder[1]:
                name = name_of_key(key)
                if name not in seen:
                    names.append(name)
        return sorted(names)


class EventRelay:
    """The workers' events onto the front's bus, and "someone listens" said to the
    workers while the bus has subscribers."""

    def __init__(self, nc: Client, subjects: Subjects, context: Context) -> None:
        self.nc = nc
        self.subjects = subjects
        self.bus = context.master.bus
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.nc.subscribe(self.subjects.all_events, cb=self._received)
        self._task = asyncio.create_task(self._wanting())

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _received(self, msg: Msg) -> None:
        for line in msg.data.split(b"\n"):
            try:
                update = orjson.loads(line)
                self.bus.publish(str(update["event"]), update["data"])
            except (orjson.JSONDecodeError, KeyError, TypeError):
                log.warning("an event from %s is malformed", msg.subject)

    async def _wanting(self) -> None:
        while True:
            if self.bus.subscribers:
                try:
                    await self.nc.publish(self.subjects.want, b"")
                except Exception as exc:
                    log.warning("telling the workers of listeners failed: %s", exc)
            await asyncio.sleep(WANT_EVERY / 2)


def _answer(body: bytes) -> Answer:
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return Answer(body, "internal")
    if data.get("ok"):
        return Answer(body)
    return Answer(body, str(data.get("error", {}).get("kind", "internal")))


def _with_id(body: bytes, ident: Any) -> bytes:
    data = orjson.loads(body)
    data["id"] = ident
    data.pop("moved", None)
    return orjson.dumps(data)


def _result_text(body: bytes) -> str:
    answer = _answer(body)
    if answer.ok:
        return body.decode(errors="replace")
    error = orjson.loads(body).get("error", {})
    return f"error {error.get('kind')}: {error.get('message')}"


async def put_configured(buckets: Buckets, outstations: list[OutstationSettings]) -> None:
    """The outstations of a front's configuration written to the cluster (those already
    there are left as they are)."""
    for settings in outstations:
        with contextlib.suppress(KeyWrongLastSequenceError):
            await created(
                buckets.outstations,
                outstation_key(settings.name),
                settings.model_dump_json().encode(),
            )


__all__ = ["ClusterDispatcher", "ConnectionFailed", "EventRelay", "put_configured"]
