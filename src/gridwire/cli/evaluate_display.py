"""What ``gridwire evaluate`` shows while it runs: one line per check as it ends and, on a
terminal, below them a live display (rich) of the check under way, done of total and the
verdict counts. Both end with the summary.

The display follows the run's :class:`~gridwire.evaluate.runner.Progress`, looking at it a
few times a second; it never holds up the run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Bar

from gridwire.evaluate.records import CheckResult, Report, Summary
from gridwire.evaluate.runner import Progress

REFRESH = 0.2
"""Seconds between two looks at the run's progress."""

NAMES = {
    "passed": "passed",
    "failed": "FAILED",
    "not_applicable": "not applicable",
    "not_run": "not run",
}


def result_line(result: CheckResult) -> str:
    """One check's line: id, verdict, title, and why."""
    line = f"{result.id:<13} {NAMES[result.verdict]:<15} {result.title}"
    return f"{line}: {result.detail}" if result.detail else line


def counts(summary: Summary) -> str:
    return (
        f"passed {summary.passed}, failed {summary.failed}, not applicable "
        f"{summary.not_applicable}, not run {summary.not_run}"
    )


class Display:
    """Shows a run on ``stream`` (live when it is a terminal)."""

    def __init__(self, stream: TextIO, live: bool) -> None:
        self.stream = stream
        self.live = live
        self.console = Console(file=stream, highlight=False)

    @classmethod
    def for_stream(cls, stream: TextIO) -> Display:
        return cls(stream, live=stream.isatty())

    def _print(self, text: str) -> None:
        if self.live:
            self.console.print(text, markup=False)
        else:
            print(text, file=self.stream, flush=True)

    @contextlib.asynccontextmanager
    async def showing(self, progress: Progress) -> AsyncIterator[None]:
        """Follow ``progress`` for the duration of the block."""
        watcher = asyncio.ensure_future(
            self._live(progress) if self.live else self._plain(progress)
        )
        try:
            yield
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            self._catch_up(progress, self._shown)

    _shown = 0

    def _catch_up(self, progress: Progress, shown: int) -> int:
        """Print the results that ended since ``shown``; how many are shown now."""
        results = progress.results
        for result in results[shown:]:
            self._print(result_line(result))
        self._shown = len(results)
        return self._shown

    async def _plain(self, progress: Progress) -> None:
        shown = 0
        while True:
            shown = self._catch_up(progress, shown)
            await asyncio.sleep(REFRESH)

    async def _live(self, progress: Progress) -> None:
        bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        shown = 0
        with bar:
            task = bar.add_task("surveying", total=None, counts="")
            try:
                while True:
                    shown = self._catch_up(progress, shown)
                    current = progress.current or ("surveying" if not progress.total else "")
                    bar.update(
                        task,
                        description=f"{current:<13}",
                        total=progress.total or None,
                        completed=len(progress.results),
                        counts=counts(Summary.of(progress.results)),
                    )
                    await asyncio.sleep(REFRESH)
            finally:
                self._shown = shown

    def summary(self, report: Report) -> None:
        """The last line: the verdict counts."""
        self._print(f"{report.outstation}: {len(report.results)} checks: {counts(report.summary)}")
