"""``gridwire evaluate NAME``: evaluate an IEEE 1815.2 DER outstation and write its report.

The outstation is named as ``console`` and ``serve`` name theirs (``--outstation
NAME=HOST:PORT`` or a ``--config`` file, with the shared outstation options); it needs a
profile (``--profile``, or ``"profile": "ieee1815.2"`` in its entry). The run is the
``evaluate`` operation's (:mod:`gridwire.evaluate`); the ``evaluate`` section of the file
holds its parameters and report files, which the flags override.

On a terminal a live display (rich) shows the check under way, done of total and the
verdict counts; otherwise one plain line per check as it ends. Ctrl-C cancels the run after
the check under way (which puts back what it changed); a second Ctrl-C stops at once.

``--report`` writes the report as JSON, ``--html`` a printable page with the evidence of
each failed check, ``--junit`` JUnit XML; ``--capture`` writes the run's frames as a pcap
file and fills each result's ``packets``. Exit status: 0 when no check failed, 1 when one
did, 2 when the run could not be made.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from gridwire.cli.config import _number, add_common_options, config_from_args, say
from gridwire.cli.evaluate_display import Display
from gridwire.der.profiles import ProfileLoader
from gridwire.errors import ConfigError, OperationError
from gridwire.evaluate import Options, Progress, evaluations_of, listing
from gridwire.evaluate.output import RunOutput, collect_output, write_outputs
from gridwire.master import Master, OutstationSettings
from gridwire.service.config import ServiceConfig
from gridwire.service.runner import configure_logging

TRACE_LIMIT = 500_000
"""Frames the evaluation's master keeps: every frame of a full run, for its evidence."""

EPILOG = (
    "exit status: 0 when no check failed, 1 when one failed, 2 when the run could not be "
    "made (no connection, no answer to the first read, a bad option)"
)


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
    parser.set_defaults(func=run)


def options_of(args: argparse.Namespace, config: ServiceConfig) -> Options:
    """The run's parameters: the file's ``evaluate`` section with the flags laid over it
    (checked when the run starts)."""
    section = config.evaluate
    settle = section.settle if args.settle is None else _number("--settle", args.settle, float, 0)
    curves = section.curves if args.curves is None else _number("--curves", args.curves, int, 1)
    return Options(
        checks=args.check if args.check is not None else section.checks,
        allow_deviations=bool(args.allow_deviations or section.allow_deviations),
        settle=settle,
        curves=None if curves is None else int(curves),
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
    quiet = args.log_level is None and config.log_file is None
    if quiet:
        config = config.model_copy(update={"log_level": "WARNING"})  # keep the display clear
    options = options_of(args, config)
    options.checked()  # a bad parameter before any connection
    settings = _outstation(config, args.name)
    outputs = _outputs(args, config)
    configure_logging(config)
    if quiet:  # each deviation a check turns on or off is logged at WARNING: it was asked for
        logging.getLogger("gridwire.master.deviations").setLevel(logging.ERROR)
    display = Display.for_stream(sys.stdout)
    display.connecting(settings.host, settings.port, settings.tls is not None)
    output = asyncio.run(_evaluate(config, settings, options, outputs, display))
    write_outputs(output, outputs, say)
    return 1 if output.report.summary.failed else 0


async def _evaluate(
    config: ServiceConfig,
    settings: OutstationSettings,
    options: Options,
    outputs: dict[str, Path | None],
    display: Display,
) -> RunOutput:
    master = Master(
        allow_control=config.allow_control,
        profiles=ProfileLoader(config.tables),
        trace_limit=TRACE_LIMIT,
    )
    try:
        await _connect(master, settings, config.connect_wait)
        await master.idle(settings.name)
        progress = Progress(settings.name)
        evaluations = evaluations_of(master)
        with _cancel_on_interrupt(lambda: evaluations.cancel(settings.name)):
            async with display.showing(progress):
                report = await evaluations.evaluate(
                    settings.name,
                    options,
                    device_profile=config.device_profile,
                    progress=progress,
                )
        display.summary(report)
        return collect_output(
            master,
            report,
            progress.frames_before,
            evidence=outputs["html"] is not None,
            capture=outputs["capture"] is not None,
        )
    finally:
        await master.close()


async def _connect(master: Master, settings: OutstationSettings, wait: float | None) -> None:
    try:
        await master.add(settings)
    except OperationError as exc:
        if exc.kind != "connection" or wait is None:
            raise
        await master.connect(settings.name, wait)


@contextlib.contextmanager
def _cancel_on_interrupt(cancel: Callable[[], object]) -> Iterator[None]:
    """The first Ctrl-C cancels the run after the check under way; the next one stops."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    asked = False

    def interrupted() -> None:
        nonlocal asked
        if asked and task is not None:
            task.cancel()
            return
        asked = True
        print("\ncancelling after the check under way (Ctrl-C again stops now)", file=sys.stderr)
        cancel()

    installed = False
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, interrupted)
        installed = True
    try:
        yield
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
