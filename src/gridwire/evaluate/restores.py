"""Putting back what a check changed, however it ended (DESIGN D117, D118).

When a check's steps end (passed, failed, raised, or aborted), :func:`put_back` runs inside
its hold:

1. When the connection is down (lost during the check), it waits for the master to connect
   again, up to the run's ``restore_wait`` seconds (30 by default). Not back in time: nothing
   is written; every point of the journal is left changed (``now`` null) and the journal
   file stays.
2. The check's own restores (:meth:`CheckContext.restore`), last-first; one that raises is
   named among what was not put back.
3. The journal (:mod:`gridwire.evaluate.journal`): every point the run changed is read,
   what still differs from its value as found is written back, and what differs after that
   is left changed (added to the run's ``left_changed``, kept in the journal).

:func:`bounded` runs it to its end unless the run is aborted: from then on it is given
``settle`` + :data:`ABORT_GRACE` seconds, then stopped, and what the journal holds is
left changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Final

from gridwire.errors import GridwireError
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.journal import left_item
from gridwire.evaluate.outcomes import CheckEnded

log = logging.getLogger("gridwire.evaluate")

ABORT_GRACE: Final = 5.0
"""Seconds beyond ``settle`` the restores of an aborted check are given."""
RESTORE_WAIT: Final = 30.0
"""Seconds the restores wait for a lost connection to come back (the default)."""


async def put_back(ctx: CheckContext) -> list[str]:
    """The check's restores, then the journal's (see the module's notes): what was not put
    back, each named (empty when everything is as found)."""
    run = ctx.run
    deadline = ctx.clock.monotonic() + run.restore_wait
    if not await _connected(ctx, deadline):
        ctx.note(f"the connection was not back within {run.restore_wait:g} s: nothing was put back")
        left = [left_item(e, None) for e in run.journal.entries] if run.journal else []
        own = _left_changed(ctx, left)
        return [str(item["point"]) for item in own] or ["the connection was not back"]
    failed = await _own_restores(ctx)
    if run.journal is None:
        return failed
    left = await _journal_put_back(ctx, deadline)
    for item in _left_changed(ctx, left):
        failed.append(f"{item['point']} (as found {item['as_found']}, now {item['now']})")
    return failed


async def _journal_put_back(ctx: CheckContext, deadline: float) -> list[dict[str, object]]:
    """The journal put back; tried again while the connection drops, until ``deadline``
    (then everything it holds is left, ``now`` not read)."""
    journal = ctx.run.journal
    assert journal is not None
    while True:
        if await _connected(ctx, deadline):
            try:
                return await journal.put_back(ctx.run.settle)
            except GridwireError as exc:
                if ctx.master.connected(ctx.outstation):
                    log.error("the journal of %s could not be put back: %s", ctx.outstation, exc)
                    break
        if ctx.clock.monotonic() >= deadline:
            break
    return [left_item(e, None) for e in journal.entries]


async def bounded(
    restoring: asyncio.Future[list[str]], aborted: asyncio.Event, bound: float, ctx: CheckContext
) -> list[str]:
    """``restoring`` awaited; once ``aborted`` is set, for ``bound`` seconds at most, then
    stopped (what the journal holds is then left changed)."""
    waiting: asyncio.Future[Any] = asyncio.ensure_future(aborted.wait())
    both: set[asyncio.Future[Any]] = {restoring, waiting}
    try:
        await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        if not restoring.done():
            await asyncio.wait({restoring}, timeout=bound)
    except asyncio.CancelledError:
        restoring.cancel()
        raise
    finally:
        waiting.cancel()
    if restoring.done():
        return restoring.result()
    restoring.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await restoring
    ctx.note(f"the restores were stopped after {bound:g} s")
    journal = ctx.run.journal
    left = [left_item(e, None) for e in journal.entries] if journal else []
    own = _left_changed(ctx, left)
    return [str(item["point"]) for item in own] or ["the restores were stopped"]


async def _connected(ctx: CheckContext, deadline: float) -> bool:
    if ctx.master.connected(ctx.outstation):
        return True
    wait = max(0.0, deadline - ctx.clock.monotonic())
    log.warning("restores of %s wait up to %.1f s for the connection", ctx.spec.id, wait)
    return await ctx.master.wait_connected(ctx.outstation, wait)


async def _own_restores(ctx: CheckContext) -> list[str]:
    """The check's restores, last-first; each that failed becomes a note and is named."""
    failed: list[str] = []
    while ctx.restores:
        what, undo = ctx.restores.pop()
        try:
            await undo()
        except asyncio.CancelledError:
            raise
        except CheckEnded as exc:
            ctx.note(f"restore failed: {what}: {exc.detail}")
            failed.append(what)
        except Exception as exc:
            ctx.note(f"restore failed: {what}: {type(exc).__name__}: {exc}")
            failed.append(what)
    return failed


def _left_changed(ctx: CheckContext, left: list[dict[str, object]]) -> list[dict[str, object]]:
    """The journal covers the whole run, so ``left`` is all the run leaves changed now; those
    a check before this one left are not this check's failure."""
    earlier = {item["point"] for item in ctx.run.left_changed}
    ctx.run.left_changed = left
    return [item for item in left if item["point"] not in earlier]
