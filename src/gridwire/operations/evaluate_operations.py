"""``checks``, ``evaluate``, ``evaluation``, ``report`` and ``cancel_evaluation``: one
declaration each, calling :mod:`gridwire.evaluate`.

``evaluate`` is not gated as a command. Its checks that write run only when the service was
started with ``--allow-control`` (such a check is reported ``not_run``,
D99); the rest still run, reading only, so a read-only service evaluates what it may.
Every control a writing check sends is one command record naming the check
(:mod:`gridwire.master.command_log`). A second ``evaluate`` against an outstation while one runs is a
request error (one run per outstation), and so is one while the service stops.

How a run ends through the service (D125, :mod:`gridwire.operations.evaluation_ends`):
``cancel_evaluation`` answers once the run ended, the check under way having put back what
it changed. A caller of ``evaluate`` that is cancelled (an HTTP client that left, or the
server cutting its request short) cancels the run the same way and waits for its end; the
report stays ``evaluation``'s. The line service cannot tell a client that closed from one
that half-closed to wait for its answer, and cancels nothing: the run goes on to its end,
each check restoring as it ends. ``stop`` and the signals end every run before the
service closes (:mod:`gridwire.service.runner`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from gridwire.errors import RequestError
from gridwire.evaluate.catalogue import SETS, listing
from gridwire.evaluate.evaluations import evaluations_of
from gridwire.evaluate.journal import default_state_dir, restore_journal
from gridwire.evaluate.output import REPORT_FORMATS, evidence_in_trace, render_report
from gridwire.evaluate.records import CancelResult, ChecksResult, EvaluationStatus, Report
from gridwire.evaluate.runner import SETTLE_DEFAULT, Options
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OutstationParams, Params, declare
from gridwire.operations.evaluation_ends import end_evaluation

log = logging.getLogger("gridwire.service")


class EvaluateParams(OutstationParams):
    checks: list[str] | None = Field(
        default=None,
        description="Check ids (any case, for example MON-001) or set names (exactly: "
        f"{', '.join(SETS)}); all when left out",
    )
    allow_deviations: bool = Field(
        default=False, description="Run the checks that have the master break a protocol rule"
    )
    settle: float = Field(
        default=SETTLE_DEFAULT,
        gt=0,
        allow_inf_nan=False,
        description="Seconds to wait for the outstation to reach a state it was commanded to",
    )
    curves: int | None = Field(
        default=None,
        ge=1,
        description="How many curves the outstation stores; found by selecting each when left out",
    )


class ReportParams(OutstationParams):
    format: Literal["json", "html", "junit"] = Field(
        default="json", description="json, html (printable page) or junit (JUnit XML)"
    )


@dataclass(slots=True)
class ReportFile:
    """``report``: the last report of an outstation as a file: ``content`` is its text
    (UTF-8 once encoded: the very octets ``gridwire evaluate`` writes for the same report),
    ``media_type`` and ``filename`` what a download gives it."""

    outstation: str
    format: str
    media_type: str
    filename: str
    content: str


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _report_file(context: Context, params: ReportParams) -> ReportFile:
    report = evaluations_of(context.master).status(params.outstation).report
    if report is None:
        raise RequestError(
            f"no evaluation of {params.outstation!r} has ended since the service started: "
            "run evaluate first"
        )
    evidence = evidence_in_trace(context.master, report) if params.format == "html" else None
    content = render_report(report, params.format, evidence)
    media_type, suffix = REPORT_FORMATS[params.format]
    stem = _UNSAFE.sub("_", f"evaluation-{report.outstation}-{report.started.replace(':', '-')}")
    return ReportFile(
        report.outstation, params.format, media_type, f"{stem}.{suffix}", content.decode("utf-8")
    )


def _check_evaluate(context: Context, params: EvaluateParams) -> None:
    _options(params).checked()
    context.point_map(params.outstation)
    if context.stopping.is_set():
        raise RequestError("the service is stopping: no evaluation starts now")


def _options(params: EvaluateParams) -> Options:
    return Options(params.checks, params.allow_deviations, params.settle, params.curves)


async def _evaluate(context: Context, params: EvaluateParams) -> Report:
    evaluations = evaluations_of(context.master)
    outstation = params.outstation
    try:
        return await evaluations.evaluate(
            outstation,
            _options(params),
            device_profile=context.device_profile,
            state_dir=context.state_dir,
        )
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling() == 0:
            # The run itself was aborted (the service stopping), not this caller.
            raise RequestError(
                f"the evaluation of {outstation} was aborted: the service is stopping; the "
                "check under way ran its restores"
            ) from None
        if evaluations.running(outstation):
            log.info("evaluate on %s: the caller left; its evaluation is cancelled", outstation)
            await end_evaluation(context.master, outstation)
            log.info("evaluate on %s: the caller left; its evaluation ended", outstation)
        raise


async def _cancel(context: Context, params: OutstationParams) -> CancelResult:
    evaluations = evaluations_of(context.master)
    result = evaluations.cancel(params.outstation)
    if result.cancelled:
        await end_evaluation(context.master, params.outstation)
    return result


class RestoreParams(OutstationParams):
    settle: float = Field(
        default=SETTLE_DEFAULT,
        gt=0,
        allow_inf_nan=False,
        description="Seconds to wait for the outstation to reach each state written back",
    )


@dataclass(slots=True)
class RestoredPoint:
    point: str
    as_found: Any
    now: Any
    restored: bool


@dataclass(slots=True)
class RestoreResult:
    outstation: str
    points: list[RestoredPoint]


async def _restore(context: Context, params: RestoreParams) -> RestoreResult:
    outstation = params.outstation
    if evaluations_of(context.master).running(outstation):
        raise RequestError(
            f"an evaluation of {outstation} is running: its own restores run as it ends"
        )
    async with context.master.hold(outstation):
        found = await restore_journal(
            context.master, outstation, context.state_dir or default_state_dir(), params.settle
        )
    points = [
        RestoredPoint(str(i["point"]), i["as_found"], i["now"], bool(i["restored"])) for i in found
    ]
    return RestoreResult(outstation, points)


EVALUATE_OPERATIONS: list[Operation[Any]] = [
    declare(
        "checks",
        params=Params,
        result=ChecksResult,
        handler=lambda c, p: ChecksResult(listing()),
        summary="List the checks an evaluation can run: id, title, set, writes, deviates",
        description="In catalogue order (the order a run takes). A check that writes runs only "
        "on a service started with --allow-control; one that deviates only with "
        "allow_deviations.",
    ),
    declare(
        "evaluate",
        params=EvaluateParams,
        result=Report,
        handler=_evaluate,
        check=_check_evaluate,
        summary="Evaluate an IEEE 1815.2 DER outstation; answers with the report",
        description="Needs the outstation to have a profile. Surveys what is served, then runs "
        "the checks in catalogue order, each result also sent as a check event as it ends. "
        "Checks that write run only with --allow-control (else not_run), those that deviate "
        "only with allow_deviations; the service itself is not refused. A run takes minutes; "
        "one at a time per outstation (a second is refused). No answer to the first read, "
        "or the connection lost during the survey: an error of kind connection. An HTTP "
        "client that leaves cancels its run (the check under way puts back what it changed); "
        "on the line service the run goes on to its end.",
    ),
    declare(
        "evaluation",
        params=OutstationParams,
        result=EvaluationStatus,
        handler=lambda c, p: evaluations_of(c.master).status(p.outstation),
        summary="The evaluation running against an outstation (progress), or its last report",
    ),
    declare(
        "report",
        params=ReportParams,
        result=ReportFile,
        handler=_report_file,
        summary="The last evaluation report of an outstation as a file: json, html or junit",
        description="The same writer as gridwire evaluate --report, --html and --junit: "
        "content is the file's text, with media_type and filename for a download. The HTML "
        "carries the evidence of each failed check while the trace still holds its frames. "
        "A request error when no evaluation of the outstation has ended.",
    ),
    declare(
        "cancel_evaluation",
        params=OutstationParams,
        result=CancelResult,
        handler=_cancel,
        summary="Stop the running evaluation after the check under way; the rest are not_run",
        description="The check under way ends and puts back what it changed; the answer comes "
        "once the run ended (its restores done). The report then gives every later check as "
        "not_run (cancelled).",
    ),
    declare(
        "restore_evaluation",
        params=RestoreParams,
        result=RestoreResult,
        handler=_restore,
        commands=True,
        summary="Write back what the restore journal of an interrupted evaluation holds",
        description="A run killed mid-check (kill -9, a power cut) leaves its journal: each "
        "point it changed, as found. This writes each back and answers it (point, as_found, "
        "now, restored); the journal is removed once everything is back, else keeps what is "
        "not. A request error when no journal is left or an evaluation runs.",
    ),
]
