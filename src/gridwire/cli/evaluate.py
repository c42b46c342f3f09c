"""``gridwire evaluate NAME``: evaluate an IEEE 1815.2 DER outstation and write its report.

The outstation is named as ``console`` and ``serve`` name theirs (``--outstation
NAME=HOST:PORT`` or a ``--config`` file, with the shared outstation options); it needs a
profile (``--profile``, or ``"profile": "ieee1815.2"`` in its entry). The run is the
``evaluate`` operation's (:mod:`gridwire.evaluate`); the ``evaluate`` section of the file
holds its parameters and report files, which the flags override.

On a terminal a live display (rich) shows the check under way, done of total and the
verdict counts; otherwise one plain line per check as it ends. SIGTERM, SIGHUP or Ctrl-C
stop the run after the check under way (which puts back what it changed); a second stops
the check under way, its restores still run; a third leaves at once
(:mod:`gridwire.cli.evaluate_stop`).

Every point the run changes is journaled as found in ``--state-dir``
(:mod:`gridwire.evaluate.journal`); a journal left by a run that never ended refuses the
next until ``--restore`` writes it back or ``--discard-journal`` drops it.

``--report`` writes the report as JSON, ``--html`` a printable page with the evidence of
each failed check, ``--junit`` JUnit XML; ``--capture`` writes the run's frames as a pcap
file and fills each result's ``packets``. Exit status: the table of
:data:`gridwire.cli.evaluate_stop.EXIT_TABLE`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from gridwire.cli.config import _number, add_common_options, config_from_args, say
from gridwire.cli.evaluate_display import Display
from gridwire.cli.evaluate_stop import (
    EXIT_INCOMPLETE,
    EXIT_LEFT_CHANGED,
    EXIT_PASSED,
    EXIT_TABLE,
    Signals,
    Stopping,
    exit_status,
    say_left_changed,
    stop_on_signals,
)
from gridwire.der.profiles import ProfileLoader
from gridwire.errors import ConfigError, OperationError
from gridwire.evaluate import Options, Progress, evaluations_of, listing
from gridwire.evaluate.journal import (
    default_state_dir,
    discard_journal,
    journal_path,
    pending,
    refuse_if_left,
    restore_journal,
)
from gridwire.evaluate.output import RunOutput, collect_output, write_outputs
from gridwire.evaluate.restores import RESTORE_WAIT
from gridwire.master import Master, OutstationSettings
from gridwire.service.config import ServiceConfig
from gridwire.service.runner import check_files, configure_logging

TRACE_LIMIT = 500_000
"""Frames the evaluation's master keeps: every frame of a full run, for its evidence."""

EPILOG = EXIT_TABLE


class _KeepTables(argparse.HelpFormatter):
    """Wraps the description, keeps the lines of the exit status table as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="evaluate an IEEE 1815.2 DER outstation: checks, verdicts and a report",
        description="Survey an outstation, then run the evaluation's checks against it in "
        "catalogue order and print each verdict; write the report as JSON (--report), a "
        "printable page (--html) or JUnit XML (--junit). Checks that write run only with "
        "--allow-control, those that break a protocol rule only with --allow-deviations. "
        "The outstation needs a profile (--profile).",
        epilog=EPILOG,
        formatter_class=_KeepTables,
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="the outstation to evaluate")
    add_common_options(parser)
    add = parser.add_argument
    add(
        "--check",
        action="append",
        metavar="ID|SET",
        help="a check (any case) or a set (device-profile, der, deviation); repeatable; all "
        "when none",
    )
    add(
        "--allow-deviations",
        action="store_true",
        default=None,
        help="run the checks that have the master break a protocol rule",
    )
    add("--settle", metavar="SECONDS", help="wait for a commanded state this long (5)")
    add("--curves", metavar="N", help="curves the outstation stores (found when not given)")
    add("--list", action="store_true", help="list the checks and end")
    add("--report", metavar="FILE.json", help="write the report as JSON")
    add("--html", metavar="FILE.html", help="write the report as a printable page")
    add("--junit", metavar="FILE.xml", help="write the report as JUnit XML")
    add(
        "--restore",
        action="store_true",
        help="write back what the journal left by an earlier run holds, report each point, "
        "and end (needs --allow-control)",
    )
    add(
        "--discard-journal",
        action="store_true",
        help="drop the journal left by an earlier run (without writing it back), then evaluate",
    )
    add(
        "--restore-wait",
        metavar="SECONDS",
        help="how long the restores wait for a lost connection to come back (30)",
    )
    parser.set_defaults(func=run)


def options_of(args: argparse.Namespace, config: ServiceConfig) -> Options:
    """The run's parameters: the file's ``evaluate`` section with the flags laid over it
    (checked when the run starts)."""
    section = config.evaluate
    settle = section.settle if args.settle is None else _number("--settle", args.settle, float, 0)
    curves = section.curves if args.curves is None else _number("--curves", args.curves, int, 1)
    wait = (
        RESTORE_WAIT
        if args.restore_wait is None
        else _number("--restore-wait", args.restore_wait, float, 0)
    )
    return Options(
        checks=args.check if args.check is not None else section.checks,
        allow_deviations=bool(args.allow_deviations or section.allow_deviations),
        settle=settle,
        curves=None if curves is None else int(curves),
        restore_wait=float(wait),
    )


def _outputs(args: argparse.Namespace, config: ServiceConfig) -> dict[str, Path | None]:
    section = config.evaluate
    chosen: dict[str, Path | None] = {}
    for name in ("report", "html", "junit"):
        text = getattr(args, name)
        chosen[name] = Path(text) if text is not None else getattr(section, name)
    chosen["capture"] = config.capture
    return chosen


def _outstation(config: ServiceConfig, name: str) -> OutstationSettings:
    for settings in config.outstations:
        if settings.name == name:
            if settings.profile is None:
                raise ConfigError(
                    f"outstation {name} has no profile, which names its points: give "
                    '--profile, or "profile": "ieee1815.2" in its --config entry'
                )
            return settings
    known = ", ".join(s.name for s in config.outstations) or "none"
    raise ConfigError(
        f"no outstation is named {name!r} (outstations: {known}); name it with --outstation "
        f"{name}=HOST:PORT or in the --config file"
    )


def print_listing() -> None:
    column = max(len(info.id) for info in listing()) + 2
    for info in listing():
        marks = ("writes " if info.writes else "") + ("deviates" if info.deviates else "")
        say(f"{info.id.ljust(column)}{info.set:<15} {marks.strip():<9} {info.title}")


def run(args: argparse.Namespace) -> int:
    if args.list:
        print_listing()
        return 0
    if not args.name:
        raise ConfigError("name the outstation to evaluate (gridwire evaluate NAME ...)")
    config = config_from_args(args, "config")
    check_files(config)
    quiet = args.log_level is None and config.log_file is None
    if quiet:
        config = config.model_copy(update={"log_level": "WARNING"})  # keep the display clear
    options = options_of(args, config)
    options.checked()  # a bad parameter before any connection
    settings = _outstation(config, args.name)
    outputs = _outputs(args, config)
    state_dir = config.state_dir or default_state_dir()
    path = journal_path(state_dir, settings)
    if args.restore:
        if not config.allow_control:
            raise ConfigError("--restore writes to the outstation: give --allow-control")
        configure_logging(config)
        return asyncio.run(_restore(config, settings, state_dir, float(options.settle)))
    if args.discard_journal and discard_journal(state_dir, settings) is not None:
        say(f"discarded the restore journal {path}")
    refuse_if_left(path)
    configure_logging(config)
    if quiet:  # each deviation a check turns on or off is logged at WARNING: it was asked for
        logging.getLogger("gridwire.master.deviations").setLevel(logging.ERROR)
    display = Display.for_stream(sys.stdout)
    display.connecting(settings.host, settings.port, settings.tls is not None)
    with Signals() as signals:
        output, stopping = asyncio.run(
            _evaluate(config, settings, options, outputs, display, state_dir, signals)
        )
        if output is None:
            return _left_at_once(stopping, path)
        write_outputs(output, outputs, say)
    report = output.report
    if report.left_changed:
        say_left_changed(report.left_changed)
    code, why = exit_status(report, config.allow_control)
    if why is not None:
        print(f"gridwire evaluate: {why}", file=sys.stderr)
    return code


def _left_at_once(stopping: Stopping, path: Path) -> int:
    if stopping.before_run:
        print(
            "gridwire evaluate: stopped before the run began; nothing was changed", file=sys.stderr
        )
        return EXIT_INCOMPLETE
    left = pending(path)
    if not left:
        print("gridwire evaluate: left at once; nothing is left changed", file=sys.stderr)
        return EXIT_INCOMPLETE
    say_left_changed(left)
    print(f"(the journal {path} keeps it)", file=sys.stderr)
    return EXIT_LEFT_CHANGED


async def _evaluate(
    config: ServiceConfig,
    settings: OutstationSettings,
    options: Options,
    outputs: dict[str, Path | None],
    display: Display,
    state_dir: Path,
    signals: Signals,
) -> tuple[RunOutput | None, Stopping]:
    """The run's output, or None when a signal ended it before it made a report."""
    master = Master(
        allow_control=config.allow_control,
        profiles=ProfileLoader(config.tables),
        trace_limit=TRACE_LIMIT,
    )
    evaluations = evaluations_of(master)
    name = settings.name

    def cancel() -> bool:
        return evaluations.running(name) and evaluations.cancel(name).cancelled

    def abort() -> bool:
        return evaluations.running(name) and evaluations.abort(name).cancelled

    with stop_on_signals(signals, cancel, abort) as stopping:
        try:
            await _connect(master, settings, config.connect_wait)
            await master.idle(name)
            progress = Progress(name)
            async with display.showing(progress):
                report = await evaluations.evaluate(
                    name,
                    options,
                    device_profile=config.device_profile,
                    progress=progress,
                    state_dir=state_dir,
                )
            display.summary(report)
            return collect_output(
                master,
                report,
                progress.frames_before,
                evidence=outputs["html"] is not None,
                capture=outputs["capture"] is not None,
            ), stopping
        except asyncio.CancelledError:
            if not (stopping.left_at_once or stopping.before_run):
                raise
            return None, stopping
        finally:
            await master.close()


async def _restore(
    config: ServiceConfig, settings: OutstationSettings, state_dir: Path, settle: float
) -> int:
    """``--restore``: the journal written back, each point said; 4 when one is left."""
    master = Master(allow_control=True, profiles=ProfileLoader(config.tables))
    try:
        await _connect(master, settings, config.connect_wait)
        await master.idle(settings.name)
        points = await restore_journal(master, settings.name, state_dir, settle)
    finally:
        await master.close()
    for point in points:
        back = "put back" if point["restored"] else "LEFT CHANGED"
        say(f"{point['point']}: as found {point['as_found']}, now {point['now']}: {back}")
    left = [p for p in points if not p["restored"]]
    if left:
        say_left_changed(left)
        return EXIT_LEFT_CHANGED
    say(f"{settings.name}: every point of the journal is as found; the journal is removed")
    return EXIT_PASSED


async def _connect(master: Master, settings: OutstationSettings, wait: float | None) -> None:
    try:
        await master.add(settings)
    except OperationError as exc:
        if exc.kind != "connection" or wait is None:
            raise
        await master.connect(settings.name, wait)
