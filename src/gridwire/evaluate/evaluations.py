"""The evaluations of one master: one run per outstation at a time, its progress, the last
report, and cancelling (the ``evaluate``, ``evaluation`` and ``cancel_evaluation``
operations).

Ending runs (DESIGN D118), each leaving what the checks changed put back:

- :meth:`Evaluations.cancel` (``cancel_evaluation``): no check starts after the one under
  way, which ends as it would; the rest are ``not_run``, ``interrupted``.
- :meth:`Evaluations.abort`: the check under way is stopped now (``not_run``,
  ``interrupted``); its restores and the journal's still run, within ``settle`` + 5 s.
- :meth:`Evaluations.stop_all` (a service that stops): every run aborted, and waited for
  until its restores are done (or their bound passed).

A run is its own asyncio task: a caller that goes away while waiting for the report (a
client that closed its connection) does not end it; the run goes on to its end, and
``evaluation`` gives its report. A second ``evaluate`` while one runs against the outstation
is refused (spec, Errors rule 6) as a request error.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from pathlib import Path

from gridwire.errors import Conflict
from gridwire.evaluate.records import CancelResult, EvaluationStatus, Report, Summary
from gridwire.evaluate.runner import Options, Progress, evaluate
from gridwire.master import Master

EVENT_TURNS = 16
"""Turns of the event loop the answer gives the event streams (see _let_events_out)."""


@dataclass(slots=True)
class _Run:
    progress: Progress
    task: asyncio.Task[Report]


class Evaluations:
    """The evaluations of ``master`` (see the module's notes)."""

    def __init__(self, master: Master) -> None:
        self._master = weakref.ref(master)
        self._running: dict[str, _Run] = {}
        self._last: dict[str, Report] = {}

    @property
    def master(self) -> Master:
        master = self._master()
        if master is None:
            raise RuntimeError("the master of these evaluations is gone")
        return master

    def running(self, outstation: str) -> bool:
        return outstation in self._running

    async def evaluate(
        self,
        outstation: str,
        options: Options | None = None,
        *,
        device_profile: Path | None = None,
        progress: Progress | None = None,
        state_dir: Path | None = None,
    ) -> Report:
        """Run an evaluation of ``outstation`` and answer with its report; RequestError when
        one already runs against it (and what :func:`~gridwire.evaluate.runner.evaluate`
        raises)."""
        master = self.master
        master.settings(outstation)  # RequestError for an unknown outstation first
        under_way = self._running.get(outstation)
        if under_way is not None:
            p = under_way.progress
            at = f", at {p.current}" if p.current else ""
            raise Conflict(
                f"an evaluation of {outstation} is already running (started {p.started}, "
                f"{len(p.results)} of {p.total} checks done{at}); one at a time per "
                "outstation: wait for its report or cancel_evaluation"
            )
        progress = progress or Progress(outstation)
        task = asyncio.ensure_future(
            evaluate(
                master,
                outstation,
                options,
                device_profile=device_profile,
                progress=progress,
                state_dir=state_dir,
            )
        )
        self._running[outstation] = _Run(progress, task)
        task.add_done_callback(lambda done: self._ended(outstation, done))
        report = await asyncio.shield(task)
        await _let_events_out()
        return report

    def _ended(self, outstation: str, task: asyncio.Task[Report]) -> None:
        run = self._running.get(outstation)
        if run is not None and run.task is task:
            del self._running[outstation]
        if not task.cancelled() and task.exception() is None:
            self._last[outstation] = task.result()

    def status(self, outstation: str) -> EvaluationStatus:
        """The run under way against ``outstation``, else its last report."""
        self.master.settings(outstation)  # RequestError for an unknown outstation
        run = self._running.get(outstation)
        if run is not None:
            p = run.progress
            return EvaluationStatus(
                outstation=outstation,
                state="running",
                started=p.started,
                current=p.current,
                done=len(p.results),
                total=p.total,
                cancelling=p.cancelled,
                summary=Summary.of(p.results),
                results=list(p.results),
            )
        report = self._last.get(outstation)
        if report is None:
            return EvaluationStatus(outstation=outstation, state="none")
        return EvaluationStatus(
            outstation=outstation,
            state="finished",
            started=report.started,
            done=len(report.results),
            total=len(report.results),
            summary=report.summary,
            results=report.results,
            report=report,
        )

    def cancel(self, outstation: str) -> CancelResult:
        """Stop the run against ``outstation`` after the check under way; the rest are
        reported not_run ("cancelled"). Nothing to do when none runs."""
        self.master.settings(outstation)  # RequestError for an unknown outstation
        run = self._running.get(outstation)
        if run is None:
            return CancelResult(outstation, cancelled=False, current=None)
        run.progress.cancelled = True
        return CancelResult(outstation, cancelled=True, current=run.progress.current)

    def abort(self, outstation: str) -> CancelResult:
        """Stop the run against ``outstation`` now: the check under way ends ``not_run``
        (interrupted), its restores run within settle + 5 s; the rest are not run."""
        self.master.settings(outstation)  # RequestError for an unknown outstation
        run = self._running.get(outstation)
        if run is None:
            return CancelResult(outstation, cancelled=False, current=None)
        current = run.progress.current
        run.progress.abort()
        return CancelResult(outstation, cancelled=True, current=current)

    async def stop_all(self) -> None:
        """Abort every run and wait until each has ended, its restores done."""
        runs = list(self._running.values())
        for run in runs:
            run.progress.abort()
        if runs:
            await asyncio.wait([run.task for run in runs])


async def _let_events_out() -> None:
    """Give the event streams their turns before the report is answered, so a subscriber
    of the line service receives the last ``check`` event before the answer. A stream takes
    an update and writes it within a few turns of the event loop, waiting on nothing."""
    for _ in range(EVENT_TURNS):
        await asyncio.sleep(0)


_OF_MASTER: weakref.WeakKeyDictionary[Master, Evaluations] = weakref.WeakKeyDictionary()


def evaluations_of(master: Master) -> Evaluations:
    """The evaluations of ``master`` (made on first use)."""
    found = _OF_MASTER.get(master)
    if found is None:
        found = _OF_MASTER[master] = Evaluations(master)
    return found
