"""One evaluation run: parameters checked, the survey, then each check in catalogue order.

:func:`evaluate` is the whole run (the ``evaluate`` operation and ``gridwire evaluate`` call
it through :mod:`gridwire.evaluate.evaluations`, which keeps one run per outstation):

1. The parameters (:class:`Options`): ``checks`` ids in any case or set names exactly (an
   unknown one is a request error naming it), ``settle`` a finite number > 0 (5), ``curves``
   an integer >= 1 or null. The outstation must have a profile (a request error saying how to
   give one).
2. Every deviation is turned off (and put back as found when the run ends); the survey
   (:mod:`gridwire.evaluate.survey`) finds what is served. Not connected, no answer to the
   first read, or the connection lost during the survey: ConnectionFailed (kind
   ``connection``), no report.
3. Each check in catalogue order. It is ``not_run``, with the reason as its detail, when it
   writes and the master may not command; when it deviates and ``allow_deviations`` is
   false; when an earlier check lost the connection; once the run is cancelled
   ("cancelled"); and while its code is not written ("not implemented in this build").
   Every check runs with the outstation held (``Master.hold``): no task, scheduled scan
   or other caller's request reaches it until the check ends. The issue asks this of the
   checks that write or deviate; holding the read-only ones too keeps a check's frames,
   requests and evidence its own (a task's event poll no longer lands inside them), at the
   cost of other callers waiting out a read-only check as well (milliseconds, at most the
   seconds of PROFILE-001 on a large profile). Its restores run last-first however it
   ended, inside the hold; one that fails becomes a note. Every
   control it sends is logged at INFO as a command naming the check. As it ends, its result
   goes out as a ``check`` event ({outstation, result}) and to the run's progress.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from gridwire import __version__
from gridwire.derops.profile import point_map_of
from gridwire.errors import ConnectionFailed, RequestError
from gridwire.evaluate.catalogue import NOT_IMPLEMENTED, CheckFunction, CheckSpec, check_function
from gridwire.evaluate.catalogue import select as select_checks
from gridwire.evaluate.context import CheckContext, RunState
from gridwire.evaluate.device import describe_device, run_parameters, seconds_between
from gridwire.evaluate.outcomes import CheckEnded
from gridwire.evaluate.records import CheckResult, Report, Summary, Verdict
from gridwire.evaluate.requests import requests_sent
from gridwire.evaluate.survey import survey
from gridwire.evaluate.verdict import settle_verdict
from gridwire.master import Master

log = logging.getLogger("gridwire.evaluate")

SETTLE_DEFAULT: Final = 5.0
CANCELLED: Final = "cancelled"
TOOL: Final = "gridwire"

# The check under way in this context: the command log lines of the master and the DER
# procedures name it (see _NameTheCheck).
_running: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "gridwire_evaluate_check", default=None
)
_COMMAND_LOGS: Final = ("gridwire.master", "gridwire.derops")
_COMMANDS: Final = (
    "operate",
    "der.",
    "write_time",
    "clear_restart",
    "synchronize_time",
    "freeze",
    "restart",
    "broadcast",
)


@dataclass(frozen=True, slots=True)
class Options:
    """The parameters of ``evaluate`` (the spec's table)."""

    checks: list[str] | None = None
    allow_deviations: bool = False
    settle: float = SETTLE_DEFAULT
    curves: int | None = None

    def checked(self) -> list[CheckSpec]:
        """The checks chosen, once every parameter is found good; RequestError naming the
        first that is not."""
        settle = self.settle
        if isinstance(settle, bool) or not isinstance(settle, int | float):
            raise RequestError(f"settle must be a number of seconds, not {settle!r}")
        if not math.isfinite(settle) or settle <= 0:
            raise RequestError(f"settle must be a finite number of seconds above 0, not {settle}")
        curves = self.curves
        if curves is not None and (
            isinstance(curves, bool) or not isinstance(curves, int) or curves < 1
        ):
            raise RequestError(
                f"curves must be a whole number of 1 or more, or null, not {curves!r}"
            )
        return select_checks(self.checks)


@dataclass(slots=True)
class Progress:
    """How a run stands, as it goes: read by ``evaluation``, cancelled by
    ``cancel_evaluation``. ``frames_before`` is the last trace id before the run's first
    frame (a capture of the run is the trace after it)."""

    outstation: str
    total: int = 0
    started: str | None = None
    current: str | None = None
    results: list[CheckResult] = field(default_factory=list)
    cancelled: bool = False
    frames_before: int = 0


def utc_now() -> str:
    """The time now, UTC, ISO 8601 to the second: ``2026-05-01T12:00:00Z``."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


async def evaluate(
    master: Master,
    outstation: str,
    options: Options | None = None,
    *,
    device_profile: Path | None = None,
    progress: Progress | None = None,
) -> Report:
    """Run the evaluation (see the module's notes); the report once the last check ended.
    RequestError for a bad parameter, an unknown outstation or one with no profile;
    ConnectionFailed when the run cannot start."""
    options = options or Options()
    specs = options.checked()
    point_map = point_map_of(master, outstation)
    session = master.session(outstation)
    progress = progress or Progress(outstation)
    progress.total = len(specs)
    progress.started = started = utc_now()
    progress.frames_before = session.frames.last_id
    _name_the_checks()
    found_on = session.deviations.on
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
        )
        lost: str | None = None
        for spec in specs:
            reason = _reason_not_to_run(spec, run, lost, progress.cancelled)
            progress.current = spec.id if reason is None else None
            result = await _check(run, spec, reason)
            if lost is None and not session.connected:
                lost = spec.id
            progress.current = None
            progress.results.append(result)
            master.bus.publish("check", {"outstation": outstation, "result": result})
    finally:
        progress.current = None
        _put_back_deviations(master, outstation, found_on)
    curves = options.curves if options.curves is not None else run.curves_found
    ended = utc_now()
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
    )
    return settle_verdict(report)


def _reason_not_to_run(
    spec: CheckSpec, run: RunState, lost: str | None, cancelled: bool
) -> str | None:
    if cancelled:
        return CANCELLED
    if spec.writes and not run.allow_control:
        return "it writes to the outstation: the service was not started with --allow-control"
    if spec.deviates and not run.allow_deviations:
        return "it breaks a protocol rule on purpose: allow_deviations is false"
    if lost is not None:
        return f"the connection was lost during {lost}"
    if not run.master.session(run.outstation).connected:
        return "the outstation is not connected"
    return None


async def _check(run: RunState, spec: CheckSpec, reason: str | None) -> CheckResult:
    """Run one check (or report why it is not run)."""
    function = check_function(spec) if reason is None else None
    if reason is None and function is None:
        reason = NOT_IMPLEMENTED
    if reason is not None or function is None:
        return CheckResult(spec.id, spec.title, "not_run", reason or NOT_IMPLEMENTED)
    ctx = CheckContext(spec, run)
    frames = run.master.session(run.outstation).frames
    before = frames.last_id
    started = time.monotonic()
    token = _running.set(spec.id)
    try:
        async with run.master.hold(run.outstation):
            try:
                verdict, detail = await _verdict(function, ctx)
            finally:
                await _restore(ctx)
    finally:
        _running.reset(token)
    after = frames.last_id
    return CheckResult(
        id=spec.id,
        title=spec.title,
        verdict=verdict,
        detail=detail,
        notes=ctx.notes,
        requests=requests_sent(run.master.trace(run.outstation, before), after),
        seconds=round(time.monotonic() - started, 3),
        frames=[before + 1, after] if after > before else None,
    )


async def _verdict(function: CheckFunction, ctx: CheckContext) -> tuple[Verdict, str]:
    try:
        await function(ctx)
    except CheckEnded as ended:
        verdict: Verdict = "failed" if ended.verdict == "failed" else "not_applicable"
        return verdict, ended.detail
    except ConnectionFailed as exc:
        return "failed", f"the connection was lost: {exc}"
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.exception("evaluation check %s could not be completed", ctx.spec.id)
        return "not_run", f"the check could not be completed: {type(exc).__name__}: {exc}"
    return "passed", ctx.passed_detail


async def _restore(ctx: CheckContext) -> None:
    """The check's restores, last-first; a failed one becomes a note."""
    while ctx.restores:
        what, undo = ctx.restores.pop()
        try:
            await undo()
        except asyncio.CancelledError:
            raise
        except CheckEnded as exc:
            ctx.note(f"restore failed: {what}: {exc.detail}")
        except Exception as exc:
            ctx.note(f"restore failed: {what}: {type(exc).__name__}: {exc}")


def _put_back_deviations(master: Master, outstation: str, found_on: dict[str, object]) -> None:
    try:
        session = master.session(outstation)
        now_on = session.deviations.on
        if now_on:
            master.deviate(outstation, {name: False for name in now_on})
        if found_on:
            master.deviate(outstation, found_on)
    except RequestError as exc:  # removed meanwhile
        log.info("deviations of %s not put back: %s", outstation, exc)


class _NameTheCheck(logging.Filter):
    """Makes a command log line of the master or the DER procedures, written while an
    evaluation check runs, say so and name the check."""

    def filter(self, record: logging.LogRecord) -> bool:
        check = _running.get()
        if (
            check is not None
            and record.levelno == logging.INFO
            and isinstance(record.msg, str)
            and record.msg.startswith(_COMMANDS)
            and isinstance(record.args, tuple)
        ):
            record.msg = "command of evaluation check %s: " + record.msg
            record.args = (check, *record.args)
        return True


_NAMER: Final = _NameTheCheck()


def _name_the_checks() -> None:
    for name in _COMMAND_LOGS:
        logger = logging.getLogger(name)
        if _NAMER not in logger.filters:
            logger.addFilter(_NAMER)
