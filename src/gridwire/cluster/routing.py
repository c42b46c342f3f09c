"""The front's side of an operation on one outstation: find the worker that holds it, send
the operation there once, and answer (D156).

An operation is sent to one worker, once, and never again to another: when its worker is
lost while it is in flight (its entry in the workers bucket lapses or changes epoch, or no
answer comes in time) the answer is kind ``connection``, and for an operation that commands,
"worker lost: the control may or may not have been sent". Only an answer that says nothing
was done (``moved``: the worker does not hold it; no responders: nobody listens on that
worker's subject) lets the front look the holder up again. An answer lost on its way back (a
NATS node died with it) is found by asking the worker whether the operation is still being
carried out there (D241)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from dataclasses import dataclass
from typing import Any

import nats.errors
import orjson
from nats.aio.client import Client
from nats.js.errors import NotFoundError

from gridwire.cluster.asking import ATTEMPT, TRANSIENT, asked
from gridwire.cluster.store import Buckets, Subjects, outstation_key
from gridwire.errors import ConnectionFailed, UnknownName

ROUTE_TIMEOUT = 60.0
"""Seconds an operation may take at its worker, beyond any wait or timeout it names."""
LONG = {"evaluate": 3600.0, "restore_evaluation": 600.0}
LOST = "worker {worker} lost while the operation was in flight"
LOST_CONTROL = LOST + ": the control may or may not have been sent"
LOOKUPS = 3
PENDING_AFTER = 2.0
"""Seconds an operation is in flight before, and between, questions to its worker whether it
is still being carried out there (D241): one that is not, unanswered, had its answer lost."""
PENDING_WAIT = 1.0
"""Seconds the worker has to answer that question (no answer: nothing is concluded)."""


@dataclass(frozen=True, slots=True)
class Holder:
    worker: str
    epoch: int


class Router:
    """Routes operations to the workers that hold their outstations."""

    def __init__(self, nc: Client, buckets: Buckets, subjects: Subjects) -> None:
        self.nc = nc
        self.buckets = buckets
        self.subjects = subjects

    async def holder(self, name: str) -> Holder:
        """The live worker holding ``name``; ConnectionFailed when none does now,
        UnknownName when the cluster has no such outstation."""
        key = outstation_key(name)
        try:
            entry = await asked(lambda: self.buckets.leases.get(key))
            data = orjson.loads(entry.value or b"")
            holder = Holder(str(data["worker"]), int(data["epoch"]))
        except (NotFoundError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            holder = None
        if holder is not None and await self.alive(holder):
            return holder
        try:
            await asked(lambda: self.buckets.outstations.get(key))
        except NotFoundError:
            raise UnknownName(f"unknown outstation {name!r}") from None
        raise ConnectionFailed(
            f"outstation {name} is held by no live worker now (a worker takes it within "
            f"{self.bound():g} s): nothing was sent"
        )

    def bound(self) -> float:
        """Seconds within which a lost worker's outstations are taken by another."""
        return self.buckets.lease + max(0.25, min(2.0, self.buckets.lease / 4)) * 1.2

    async def alive(self, holder: Holder) -> bool:
        try:
            key = f"w.{holder.worker}"
            entry = await asked(lambda: self.buckets.workers.get(key), 2 * ATTEMPT)
            data = orjson.loads(entry.value or b"")
        except (NotFoundError, orjson.JSONDecodeError):
            return False
        except Exception:
            return True  # the cluster cannot say: not taken as lost
        epoch = data.get("epoch", entry.revision) if isinstance(data, dict) else None
        return epoch == holder.epoch

    async def route(self, message: dict[str, Any], commands: bool) -> bytes:
        """Send ``message`` to the worker holding its outstation: that worker's answer."""
        name = str(message["outstation"])
        timeout = _timeout(message)
        for _ in range(LOOKUPS):
            holder = await self.holder(name)
            body = await self._send(holder, message, timeout, commands)
            if body is not None:
                return body
        raise ConnectionFailed(f"outstation {name} moved between workers: nothing was sent")

    async def _send(
        self, holder: Holder, message: dict[str, Any], limit: float, commands: bool
    ) -> bytes | None:
        """The answer, or None when nothing was done and the holder may be looked up again."""
        rid = secrets.token_hex(8)
        payload = orjson.dumps(
            {
                "message": message,
                "expires": time.time() + limit,
                "epoch": holder.epoch,
                "rid": rid,
            }
        )
        request = asyncio.ensure_future(
            self.nc.request(self.subjects.op(holder.worker), payload, timeout=limit)
        )
        check = max(0.2, self.buckets.lease / 4)
        lost = (LOST_CONTROL if commands else LOST).format(worker=holder.worker)
        loop = asyncio.get_running_loop()
        ask_at = loop.time() + PENDING_AFTER
        try:
            while True:
                done, _ = await asyncio.wait({request}, timeout=check)
                if done:
                    break
                if not await self.alive(holder):
                    raise ConnectionFailed(lost)
                if loop.time() >= ask_at:
                    ask_at = loop.time() + PENDING_AFTER
                    if await self._pending(holder, rid) is False:
                        # An answer sent came before this "no" (one connection, in order):
                        # a moment for its task to finish, then it is known lost.
                        await asyncio.wait({request}, timeout=0.1)
                        if not request.done():
                            raise ConnectionFailed(_answer_lost(holder, commands))
            reply = request.result()
        except nats.errors.NoRespondersError:
            return None
        except nats.errors.TimeoutError:
            raise ConnectionFailed(lost) from None
        except ConnectionFailed:
            raise
        except Exception as exc:  # the connection to NATS failed with the request out
            raise ConnectionFailed(f"{lost} ({exc or type(exc).__name__})") from None
        finally:
            if not request.done():
                request.cancel()
                with contextlib.suppress(BaseException):
                    await request
        if b'"moved":true' in reply.data[:400]:
            return None
        return bytes(reply.data)

    async def _pending(self, holder: Holder, rid: str) -> bool | None:
        """Whether the holder is still carrying out operation ``rid``; None when it does not
        say (busy, reconnecting, or a worker that does not know the question)."""
        try:
            reply = await self.nc.request(
                self.subjects.pending(holder.worker), rid.encode(), timeout=PENDING_WAIT
            )
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
            return None
        return {b"true": True, b"false": False}.get(reply.data)

    async def added(self, name: str, wait: float) -> bytes:
        """How taking a just added outstation ended, once a worker took it (within
        ``wait`` seconds in all)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + wait
        while True:
            try:
                holder = await self.holder(name)
            except ConnectionFailed:
                holder = None
            except TRANSIENT:  # the cluster cannot say now; the settings are stored: wait on
                holder = None
            if holder is not None:
                body = await self._added_at(holder, name, max(0.5, until - loop.time()))
                if b'"moved":true' not in body[:400]:
                    return body
                # Taken by another worker meanwhile (D214): ask the holder found next.
            if loop.time() >= until:
                raise ConnectionFailed(
                    f"outstation {name} was added to the cluster, but no worker took it "
                    f"within {wait:g} s (are workers running, with room?)"
                )
            await asyncio.sleep(0.1)

    async def _added_at(self, holder: Holder, name: str, left: float) -> bytes:
        payload = orjson.dumps({"outstation": name, "wait": left})
        try:
            reply = await self.nc.request(
                self.subjects.added(holder.worker), payload, timeout=left + 1
            )
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
            raise ConnectionFailed(
                f"outstation {name} was added; its worker {holder.worker} did not say how "
                "connecting ended"
            ) from None
        return bytes(reply.data)


def _answer_lost(holder: Holder, commands: bool) -> str:
    text = (
        f"the answer of worker {holder.worker} was lost (a NATS connection cut while the "
        "operation was in flight)"
    )
    return text + (": the control may or may not have been sent" if commands else "")


def _timeout(message: dict[str, Any]) -> float:
    params = message.get("params") or {}
    extra = 0.0
    if isinstance(params, dict):
        for field in ("wait", "timeout", "seconds", "duration"):
            value = params.get(field)
            if isinstance(value, int | float) and not isinstance(value, bool):
                extra = max(extra, float(value))
    return LONG.get(str(message.get("op")), ROUTE_TIMEOUT) + extra
