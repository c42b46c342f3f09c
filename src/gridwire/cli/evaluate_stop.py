"""How ``gridwire evaluate`` ends: its signals and its exit status (DESIGN D119).

Signals, counted together while the run lasts:

1. SIGTERM, SIGHUP or the first SIGINT: stop after the check under way (it ends and puts back
   what it changed), write every report asked for, exit (3: incomplete).
2. A second SIGINT or SIGTERM: stop checking now; the restores of the check under way still
   run, within settle + 5 s ("restoring ... (Ctrl-C again leaves the DER as it stands)").
3. A third: leave at once; what the journal still holds is printed as left changed.

Before the run has begun (while connecting) the first signal ends the command (exit 3):
nothing was changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from gridwire.evaluate import CheckInfo, Report, listing

EXIT_PASSED: Final = 0
EXIT_FAILED: Final = 1
EXIT_NOT_MADE: Final = 2
EXIT_INCOMPLETE: Final = 3
EXIT_LEFT_CHANGED: Final = 4

EXIT_TABLE: Final = """exit status:
  0  every check chosen ran (or was not applicable) and none failed
  1  a check failed
  2  the run could not be made: a bad option, no connection, no answer to the first read,
     a restore journal left (--restore or --discard-journal), or every check chosen was
     not run for want of --allow-control or --allow-deviations
  3  incomplete: the run was stopped (a signal) or the connection was lost, and checks
     were not run
  4  something the run changed is left changed (listed on standard error and in the
     report's left_changed); wins over the others"""

_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def exit_status(report: Report, allow_control: bool) -> tuple[int, str | None]:
    """The exit status of a run that made its report, and what to say of it (or None)."""
    if report.left_changed:
        return EXIT_LEFT_CHANGED, None
    if report.summary.incomplete:
        return EXIT_INCOMPLETE, "the run is incomplete: checks were not run (see the report)"
    flags = _flags_wanted(report, allow_control)
    if flags is not None:
        return EXIT_NOT_MADE, f"no check could run: give {flags} to run those chosen"
    return (EXIT_FAILED if report.summary.failed else EXIT_PASSED), None


def _flags_wanted(report: Report, allow_control: bool) -> str | None:
    """The options that would let the run's checks run, when every one was kept from
    running by their absence (else None)."""
    infos: dict[str, CheckInfo] = {info.id: info for info in listing()}
    wanted: dict[str, None] = {}
    for result in report.results:
        info = infos.get(result.id)
        if result.verdict != "not_run" or result.interrupted or info is None:
            return None
        if info.writes and not allow_control:
            wanted["--allow-control"] = None
        elif info.deviates and not report.allow_deviations:
            wanted["--allow-deviations"] = None
        else:
            return None
    return " and ".join(wanted) if wanted else None


def left_lines(left: Iterable[dict[str, object]]) -> list[str]:
    """What is left changed, a line each: point, as found, now."""
    lines = []
    for item in left:
        now = "not read" if item["now"] is None else _shown(item["now"])
        lines.append(f"  {item['point']}: as found {_shown(item['as_found'])}, now {now}")
    return lines


def _shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def say_left_changed(left: list[dict[str, object]]) -> None:
    print("LEFT CHANGED: what the evaluation could not put back", file=sys.stderr)
    for line in left_lines(left):
        print(line, file=sys.stderr)
    print(
        "write it back with gridwire evaluate NAME --restore --allow-control",
        file=sys.stderr,
        flush=True,
    )


@dataclass(slots=True)
class Stopping:
    """The signals received, and what they asked (see the module's notes)."""

    received: int = 0
    left_at_once: bool = False
    before_run: bool = False


class Signals:
    """SIGINT, SIGTERM and SIGHUP caught for the whole command (``with Signals() as
    signals``): while a run lasts they go to it (:func:`stop_on_signals`); before and after
    (the reports being written) they change nothing."""

    def __init__(self) -> None:
        self.target: Callable[[int], None] | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self) -> Signals:
        for number in _SIGNALS:
            with contextlib.suppress(ValueError, OSError):
                self._previous[number] = signal.signal(number, self._received)
        return self

    def __exit__(self, *exc: object) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]

    def _received(self, number: int, frame: object) -> None:
        target = self.target
        if target is not None:
            target(number)


@contextlib.contextmanager
def stop_on_signals(
    signals: Signals, cancel: Callable[[], bool], abort: Callable[[], bool]
) -> Iterator[Stopping]:
    """The signals sent to the run (see the module's notes): ``cancel`` and ``abort`` act on
    the run and say whether one was under way."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    stopping = Stopping()

    def received(number: int) -> None:
        stopping.received += 1
        name = signal.Signals(number).name
        if stopping.received == 1:
            if not cancel():
                stopping.before_run = True
                if task is not None:
                    task.cancel()
                return
            print(
                f"\n{name}: stopping after the check under way, putting back what it changed "
                "(Ctrl-C again stops now)",
                file=sys.stderr,
                flush=True,
            )
        elif stopping.received == 2:
            abort()
            print(
                f"\n{name}: restoring what the check under way changed ... "
                "(Ctrl-C again leaves the DER as it stands)",
                file=sys.stderr,
                flush=True,
            )
        else:
            stopping.left_at_once = True
            if task is not None:
                task.cancel()

    def soon(number: int) -> None:
        loop.call_soon_threadsafe(received, number)

    signals.target = soon
    try:
        yield stopping
    finally:
        signals.target = None
