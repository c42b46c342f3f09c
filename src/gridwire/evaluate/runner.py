"""One evaluation run: parameters checked, the survey, then each check in catalogue order.

:func:`evaluate` is the whole run (the ``evaluate`` operation and ``gridwire evaluate`` call
it through :mod:`gridwire.evaluate.evaluations`, which keeps one run per outstation):

1. The parameters (:class:`Options`): ``checks`` ids in any case or set names exactly (an
   unknown one is a request error naming it), ``settle`` a finite number > 0 (5), ``curves``
   an integer >= 1 or null, ``restore_wait`` seconds >= 0 the restores wait for a lost
   connection (30). The outstation must have a profile (a request error saying how to give
   one).
2. Every deviation is turned off (and put back as found when the run ends); the survey
   (:mod:`gridwire.evaluate.survey`) finds what is served. Not connected, no answer to the
   first read, or the connection lost during the survey: ConnectionFailed (kind
   ``connection``), no report.
3. Each check in catalogue order. It is ``not_run``, with the reason as its detail, when it
   writes and the master may not command; when it deviates and ``allow_deviations`` is
   false; when an earlier check lost the connection; once the run is cancelled
   ("cancelled", or "interrupted" once aborted); and while its code is not written ("not
   implemented in this build").
   Every check runs with the outstation held (``Master.hold``): no task, scheduled scan
   or other caller's request reaches it until the check ends. The issue asks this of the
   checks that write or deviate; holding the read-only ones too keeps a check's frames,
   requests and evidence its own (a task's event poll no longer lands inside them), at the
   cost of other callers waiting out a read-only check as well (milliseconds, at most the
   seconds of PROFILE-001 on a large profile). Before a control leaves, each point it is
   the first to change is journaled as found (:mod:`gridwire.evaluate.journal`; a journal
   left by an earlier run refuses the run, RequestError naming it). When the check ends,
   however it ended, its restores run last-first inside the hold, then the journal puts back
   what still differs (:mod:`gridwire.evaluate.restores`); a restore that fails, or a point
   left changed, fails the check and what is left is the report's ``left_changed``. A check
   not run because the run was cancelled or aborted or the connection was lost is
   ``interrupted`` (``summary.incomplete``). Every
   control it sends is one command record naming the check (its id set with
   :func:`gridwire.master.command_log.sent_by_check`). As it ends, its result
   goes out as a ``check`` event ({outstation, result}) and to the run's progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from gridwire import __version__
from gridwire.derops.profile import point_map_of
from gridwire.errors import BadParameter, ConnectionFailed, RequestError
from gridwire.evaluate.catalogue import NOT_IMPLEMENTED, CheckFunction, CheckSpec, check_function
from gridwire.evaluate.catalogue import select as select_checks
from gridwire.evaluate.context import CheckContext, RunState
from gridwire.evaluate.device import describe_device, run_parameters, seconds_between
from gridwire.evaluate.journal import (
    JOURNALING,
    Journal,
    default_state_dir,
    journal_path,
    refuse_if_left,
)
from gridwire.evaluate.outcomes import CheckEnded
from gridwire.evaluate.records import CheckResult, Report, Summary, Verdict
from gridwire.evaluate.requests import requests_sent
from gridwire.evaluate.restores import ABORT_GRACE, RESTORE_WAIT, bounded, put_back
from gridwire.evaluate.survey import survey
from gridwire.evaluate.verdict import settle_verdict
from gridwire.master import Master, command_log
from gridwire.process.clock import SYSTEM_CLOCK, Clock

log = logging.getLogger("gridwire.evaluate")

SETTLE_DEFAULT: Final = 5.0
CANCELLED: Final = "cancelled"
INTERRUPTED: Final = "interrupted: the run was stopped"
INTERRUPTED_DURING: Final = "interrupted: the run was stopped during this check"
TOOL: Final = "gridwire"


@dataclass(frozen=True, slots=True)
class Options:
    """The parameters of ``evaluate``: checks, allow_deviations, settle, curves, restore_wait."""

    checks: list[str] | None = None
    allow_deviations: bool = False
    settle: float = SETTLE_DEFAULT
    curves: int | None = None
    restore_wait: float = RESTORE_WAIT

    def checked(self) -> list[CheckSpec]:
        """The checks chosen, once every parameter is found good; RequestError naming the
        first that is not."""
        settle = self.settle
        if isinstance(settle, bool) or not isinstance(settle, int | float):
            raise BadParameter(f"settle must be a number of seconds, not {settle!r}")
        if not math.isfinite(settle) or settle <= 0:
            raise BadParameter(f"settle must be a finite number of seconds above 0, not {settle}")
        curves = self.curves
        if curves is not None and (
            isinstance(curves, bool) or not isinstance(curves, int) or curves < 1
        ):
            raise BadParameter(
                f"curves must be a whole number of 1 or more, or null, not {curves!r}"
            )
        wait = self.restore_wait
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not wait >= 0:
            raise BadParameter(f"restore_wait must be a number of seconds, 0 or more, not {wait!r}")
        return select_checks(self.checks)


@dataclass(slots=True)
class Progress:
    """How a run stands, as it goes: read by ``evaluation``, cancelled by
    ``cancel_evaluation``. ``frames_before`` is the last trace id before the run's first
    frame (a capture of the run is the trace after it). ``cancelled``: no check starts after
    the one under way; ``aborted``: the check under way is stopped too (its restores still
    run, within settle + :data:`ABORT_GRACE` seconds); ``check`` the task of its body."""

    outstation: str
    total: int = 0
    started: str | None = None
    current: str | None = None
    results: list[CheckResult] = field(default_factory=list)
    cancelled: bool = False
    frames_before: int = 0
    aborted: asyncio.Event = field(default_factory=asyncio.Event)
    check: asyncio.Future[tuple[Verdict, str, bool]] | None = None

    def abort(self) -> None:
        """Stop now: the check under way ends, its restores run (bounded)."""
        self.cancelled = True
        self.aborted.set()
        if self.check is not None:
            self.check.cancel()


def utc_now(clock: Clock = SYSTEM_CLOCK) -> str:
    """The time now on ``clock``, UTC, ISO 8601 to the second: ``2026-05-01T12:00:00Z``."""
    now = datetime.fromtimestamp(clock.wall(), UTC)
    return now.isoformat(timespec="seconds").replace("+00:00", "Z")


async def evaluate(
    master: Master,
    outstation: str,
    options: Options | None = None,
    *,
    device_profile: Path | None = None,
    progress: Progress | None = None,
    state_dir: Path | None = None,
) -> Report:
    """Run the evaluation (see the module's notes); the report once the last check ended.
    RequestError for a bad parameter, an unknown outstation, one with no profile or one with
    a restore journal left in ``state_dir`` (default: the user's state directory);
    ConnectionFailed when the run cannot start."""
    options = options or Options()
    specs = options.checked()
    point_map = point_map_of(master, outstation)
    path = journal_path(state_dir or default_state_dir(), master.settings(outstation))
    refuse_if_left(path)
    progress = progress or Progress(outstation)
    progress.total = len(specs)
    progress.started = started = utc_now(master.clock)
    progress.frames_before = master.frame_mark(outstation)
    journal = Journal(master, outstation, point_map, path)
    master.command_hook(outstation, journal.before)
    found_on = master.deviations(outstation)
    if found_on:
        master.deviate(outstation, {name: False for name in found_on})
    try:
        surveyed = await survey(master, outstation, point_map)
        run = RunState(
            master,
            outstation,
            point_map,
            surveyed,
            float(options.settle),
            options.curves,
            options.allow_deviations,
            device_profile,
            journal=journal,
            restore_wait=float(options.restore_wait),
        )
        lost: str | None = None
        for spec in specs:
            reason = _reason_not_to_run(spec, run, lost, progress)
            progress.current = spec.id if reason is None else None
            result = await _check(run, spec, reason, progress)
            if lost is None and (run.lost or not master.connected(outstation)):
                lost = spec.id
            progress.current = None
            progress.results.append(result)
            master.bus.publish("check", {"outstation": outstation, "result": result})
    finally:
        progress.current = None
        with contextlib.suppress(RequestError):
            master.command_hook(outstation, None)
        _put_back_deviations(master, outstation, found_on)
    for item in run.left_changed:
        log.error(
            "left changed on %s: %s, as found %s, now %s",
            outstation,
            item["point"],
            item["as_found"],
            item["now"],
        )
    curves = options.curves if options.curves is not None else run.curves_found
    ended = utc_now(master.clock)
    report = Report(
        tool=TOOL,
        version=__version__,
        outstation=outstation,
        started=started,
        allow_control=master.allow_control,
        allow_deviations=options.allow_deviations,
        tables=point_map.title,
        settle=float(options.settle),
        curves=curves,
        summary=Summary.of(progress.results),
        results=list(progress.results),
        device=await describe_device(
            master,
            outstation,
            point_map,
            surveyed,
            device_profile=device_profile,
            parameters=run_parameters(options, master.allow_control, curves),
        ),
        ended=ended,
        seconds=seconds_between(started, ended),
        left_changed=list(run.left_changed),
    )
    return settle_verdict(report)


def _reason_not_to_run(
    spec: CheckSpec, run: RunState, lost: str | None, progress: Progress
) -> tuple[str, bool] | None:
    """Why ``spec`` is not run, and whether that is an interruption (else the flags)."""
    if progress.aborted.is_set():
        return INTERRUPTED, True
    if progress.cancelled:
        return CANCELLED, True
    if spec.writes and not run.allow_control:
        return (
            "it writes to the outstation: control is not allowed (--allow-control)",
            False,
        )
    if spec.deviates and not run.allow_deviations:
        return (
            "it breaks a protocol rule on purpose: allow_deviations is false (--allow-deviations)",
            False,
        )
    if lost is not None:
        return f"the connection was lost during {lost}", True
    if not run.master.connected(run.outstation):
        return "the outstation is not connected", True
    return None


async def _check(
    run: RunState, spec: CheckSpec, why: tuple[str, bool] | None, progress: Progress
) -> CheckResult:
    """Run one check (or report why it is not run)."""
    function = check_function(spec) if why is None else None
    if why is None and function is None:
        why = NOT_IMPLEMENTED, False
    if why is not None or function is None:
        reason, interrupted = why or (NOT_IMPLEMENTED, False)
        return CheckResult(spec.id, spec.title, "not_run", reason, interrupted=interrupted)
    ctx = CheckContext(spec, run)
    before = run.master.frame_mark(run.outstation)
    started = run.master.clock.monotonic()
    journaling = JOURNALING.set(True)
    try:
        # Each command the check sends names it in its record (gridwire.master.command_log).
        with command_log.sent_by_check(spec.id):
            async with run.master.hold(run.outstation):
                verdict, detail, interrupted = await _body(function, ctx, progress)
                not_back = await bounded(
                    asyncio.ensure_future(put_back(ctx)),
                    progress.aborted,
                    run.settle + ABORT_GRACE,
                    ctx,
                )
    finally:
        JOURNALING.reset(journaling)
    if not_back:
        verdict = "failed"
        detail = (f"{detail}; " if detail else "") + "not put back: " + "; ".join(not_back)
    after = run.master.frame_mark(run.outstation)
    return CheckResult(
        id=spec.id,
        title=spec.title,
        verdict=verdict,
        detail=detail,
        notes=ctx.notes,
        requests=requests_sent(run.master.trace(run.outstation, before), after),
        seconds=round(run.master.clock.monotonic() - started, 3),
        frames=[before + 1, after] if after > before else None,
        interrupted=interrupted,
    )


async def _body(
    function: CheckFunction, ctx: CheckContext, progress: Progress
) -> tuple[Verdict, str, bool]:
    """The check's own steps as a task of their own (so ``abort`` can end them alone): its
    verdict, detail and whether it was interrupted."""
    body = asyncio.ensure_future(_verdict(function, ctx))
    progress.check = body
    if progress.aborted.is_set():
        body.cancel()
    try:
        return await body
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        return "not_run", INTERRUPTED_DURING, True
    finally:
        progress.check = None


async def _verdict(function: CheckFunction, ctx: CheckContext) -> tuple[Verdict, str, bool]:
    try:
        await function(ctx)
    except CheckEnded as ended:
        verdict: Verdict = "failed" if ended.verdict == "failed" else "not_applicable"
        return verdict, ended.detail, False
    except ConnectionFailed as exc:
        ctx.run.lost = True
        return "failed", f"the connection was lost: {exc}", False
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.exception("evaluation check %s could not be completed", ctx.spec.id)
        return "not_run", f"the check could not be completed: {type(exc).__name__}: {exc}", False
    return "passed", ctx.passed_detail, False


def _put_back_deviations(master: Master, outstation: str, found_on: dict[str, object]) -> None:
    try:
        now_on = master.deviations(outstation)
        if now_on:
            master.deviate(outstation, {name: False for name in now_on})
        if found_on:
            master.deviate(outstation, found_on)
    except RequestError as exc:  # removed meanwhile
        log.info("deviations of %s not put back: %s", outstation, exc)
