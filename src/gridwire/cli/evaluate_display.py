"""What ``gridwire evaluate`` shows while it runs: "connecting to HOST:PORT ..." from the
first moment, then one line per check as it ends and, on a terminal, below them a live
display (rich) of the check under way, done of total, the verdict counts and two labelled
clocks (this check's, the whole run's). Both end with the summary.

On a terminal a line longer than the screen is wrapped at words, each further line indented
under the title, so the ids and verdicts stay a column of their own; off a terminal (a CI's
log) each check stays one line.

The display follows the run's :class:`~gridwire.evaluate.runner.Progress`, looking at it a
few times a second; it never holds up the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import textwrap
import time
from collections.abc import AsyncIterator
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn
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


ID_WIDTH = 13
VERDICT_WIDTH = 15
INDENT = " " * (ID_WIDTH + 1 + VERDICT_WIDTH + 1)
"""Where a wrapped line goes on: under the title."""


def result_line(result: CheckResult) -> str:
    """One check's line: id, verdict, title, and why."""
    line = f"{result.id:<{ID_WIDTH}} {NAMES[result.verdict]:<{VERDICT_WIDTH}} {result.title}"
    return f"{line}: {result.detail}" if result.detail else line


def wrapped(line: str, width: int) -> str:
    """``line`` wrapped at words to ``width`` columns, further lines indented under the
    title (ids and times are never broken: a word longer than a line stays whole)."""
    if len(line) <= width or width <= len(INDENT) + 20:
        return line
    return textwrap.fill(
        line,
        width=width,
        subsequent_indent=INDENT,
        break_long_words=False,
        break_on_hyphens=False,
    )


def clock(seconds: float) -> str:
    """Elapsed time as m:ss (h:mm:ss past an hour)."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def clocks(check: float | None, run: float) -> str:
    """The bar's clocks, labelled."""
    this = f"this check {clock(check)}" if check is not None else "this check -"
    return f"{this} | run {clock(run)}"


def counts(summary: Summary) -> str:
    return (
        f"passed {summary.passed}, failed {summary.failed}, not applicable "
        f"{summary.not_applicable}, not run {summary.not_run}"
    )


def short_counts(summary: Summary) -> str:
    """The verdict counts as the bar shows them, short enough for 100 columns."""
    return (
        f"{summary.passed} passed, {summary.failed} failed, {summary.not_applicable} n/a, "
        f"{summary.not_run} not run"
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
            self.console.print(wrapped(text, self.console.width), markup=False, soft_wrap=True)
        else:
            print(text, file=self.stream, flush=True)

    def connecting(self, host: str, port: int, tls: bool = False) -> None:
        """The first line, before anything is tried: where the run goes."""
        self._print(f"connecting to {host}:{port}{' (TLS)' if tls else ''} ...")

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
            BarColumn(bar_width=16),
            MofNCompleteColumn(),
            TextColumn("{task.fields[clocks]}"),
            TextColumn("{task.fields[counts]}"),
            console=self.console,
            transient=True,
        )
        shown = 0
        began = time.monotonic()
        check: tuple[str | None, float] = (None, began)
        with bar:
            task = bar.add_task("surveying", total=None, counts="", clocks="")
            try:
                while True:
                    shown = self._catch_up(progress, shown)
                    current = progress.current or ("surveying" if not progress.total else "")
                    now = time.monotonic()
                    if current != check[0]:
                        check = (current, now)
                    bar.update(
                        task,
                        description=f"{current:<13}",
                        total=progress.total or None,
                        completed=len(progress.results),
                        counts=short_counts(Summary.of(progress.results)),
                        clocks=clocks(now - check[1] if current else None, now - began),
                    )
                    await asyncio.sleep(REFRESH)
            finally:
                self._shown = shown

    def summary(self, report: Report) -> None:
        """The last line: the verdict counts."""
        self._print(f"{report.outstation}: {len(report.results)} checks: {counts(report.summary)}")
