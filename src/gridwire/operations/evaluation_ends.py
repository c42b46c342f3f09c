"""How the service ends an evaluation: every path (``stop``, a signal to ``gridwire console``
or ``serve``, ``cancel_evaluation``, an HTTP client that left) comes here, and returns only
once the run ended, so the operation answers, or the process exits, after the restores of
the check under way are done (decision D125 in docs/DESIGN.md).

Ending a run: it is cancelled (:meth:`~gridwire.evaluate.evaluations.Evaluations.cancel`:
the check under way ends and puts back what it changed; the rest are ``not_run``
"cancelled"), and waited for. When the service stops, the check under way gets ``grace``
seconds to end by itself (or less, when the operator presses: a second signal); beyond, the
run is aborted (:meth:`~gridwire.evaluate.evaluations.Evaluations.abort`: the check stops
now, its restores still run, within settle + 5 s) and is waited for :data:`RESTORE_BOUND`
seconds (or less, when a third signal says leave now). A run that has not ended then is named at ERROR: what its
check changed may be left so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final

from gridwire.evaluate.evaluations import Evaluations, evaluations_of
from gridwire.master import Master

log = logging.getLogger("gridwire.service")

STOP_GRACE: Final = 10.0
"""Seconds the check under way gets to end by itself once the service stops."""
RESTORE_BOUND: Final = 30.0
"""Seconds an aborted run's restores get before the service stops waiting for it."""
POLL: Final = 0.02
"""Seconds between looks at whether a run ended."""


def running(master: Master) -> list[str]:
    """The outstations an evaluation runs against now."""
    evaluations = evaluations_of(master)
    return [o.name for o in master.status().outstations if evaluations.running(o.name)]


async def end_evaluation(master: Master, outstation: str) -> None:
    """Cancel the run against ``outstation`` (the check under way ends and restores) and
    return once it ended. Shielded: the caller going away does not cut the wait short for
    the run, which goes on ending."""
    evaluations = evaluations_of(master)
    evaluations.cancel(outstation)
    await asyncio.shield(_ended(evaluations, [outstation], None))


async def end_evaluations(
    master: Master,
    *,
    grace: float = STOP_GRACE,
    hurry: asyncio.Event | None = None,
    leave: asyncio.Event | None = None,
) -> list[str]:
    """End every run of ``master`` (the service is stopping; see the module's notes) and
    answer the outstations whose run could not be ended (empty when all ended)."""
    evaluations = evaluations_of(master)
    names = running(master)
    if not names:
        return []
    for name in names:
        evaluations.cancel(name)
    log.warning(
        "stopping: the evaluation of %s ends after the check under way, which puts back what "
        "it changed (a second signal stops the check now, its restores still run)",
        ", ".join(names),
    )
    names = await _ended(evaluations, names, grace, hurry)
    if names:
        log.warning("stopping: evaluation of %s aborted; its restores run", ", ".join(names))
        for name in names:
            _abort(evaluations, name)
        names = await _ended(evaluations, names, RESTORE_BOUND, leave)
    if names:
        log.error(
            "stopping: the evaluation of %s did not end: what its check under way changed may "
            "be left so",
            ", ".join(names),
        )
    return names


def _abort(evaluations: Evaluations, outstation: str) -> None:
    """Stop the check under way now; its restores and the journal's run, bounded."""
    evaluations.abort(outstation)


async def _ended(
    evaluations: Evaluations,
    names: list[str],
    within: float | None,
    cut: asyncio.Event | None = None,
) -> list[str]:
    """Wait until no run of ``names`` is under way, at most ``within`` seconds (None: no
    bound) or until ``cut`` is set; those still running."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            while any(evaluations.running(n) for n in names):
                if cut is not None and cut.is_set():
                    break
                await asyncio.sleep(POLL)
    return [n for n in names if evaluations.running(n)]
