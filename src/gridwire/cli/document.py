"""``gridwire document FILE.xml [--html OUT]``: lay out a Device Profile document; and
``gridwire document --from-outstation NAME ... [--out FILE.xml]``: write one of what an
outstation serves (``der.describe``; the outstation named as ``evaluate`` names it, with
``--outstation NAME=HOST:PORT`` or a ``--config`` file and the shared outstation options,
added with ``manual`` (confirming what the outstation asks to be confirmed) so that no poll of
the master's own takes its events before the class reads; ``--profile`` names the points
from the tables).

Without ``--html`` the layout is printed as JSON (what ``der.document`` answers); with it, a
standalone printable HTML page is written to OUT (``-`` for standard output). The document is
read as ``der.document`` reads one: a file over 8 MiB, with a DTD or an entity, not XML, or
not a Device Profile is refused, naming the rule.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from pathlib import Path
from typing import Any

import orjson

from gridwire.cli.config import add_common_options, config_from_args, say
from gridwire.der.profiles import ProfileLoader
from gridwire.derops.describe import DescribeResult, der_describe
from gridwire.devprofile.html import render_html
from gridwire.devprofile.layout import lay_out
from gridwire.devprofile.reader import read_document_file
from gridwire.errors import ConfigError, OperationError
from gridwire.master import Master, OutstationSettings
from gridwire.service.config import ServiceConfig


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "document",
        help="lay out a DNP3 Device Profile document (XML) as tables, or as a printable page",
        description="Read a DNP3 Device Profile document (any edition or vendor) and print "
        "its layout as JSON, the der.document operation's result; with --html, write it as "
        "a standalone printable HTML page instead. With --from-outstation NAME, read what the "
        "outstation serves (der.describe) and write a Device Profile document of it.",
    )
    parser.add_argument("file", nargs="?", type=Path, metavar="FILE.xml", help="the Device Profile")
    parser.add_argument(
        "--html", metavar="OUT", help="write a printable HTML page to OUT ('-': standard output)"
    )
    parser.add_argument(
        "--from-outstation",
        metavar="NAME",
        help="write a Device Profile of what outstation NAME serves, observed (der.describe)",
    )
    parser.add_argument(
        "--out", metavar="FILE.xml", help="with --from-outstation: write it here (else print it)"
    )
    add_common_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.from_outstation is not None:
        return _describe(args)
    if args.file is None:
        raise ConfigError("name a Device Profile (gridwire document FILE.xml) or --from-outstation")
    layout = lay_out(read_document_file(args.file))
    if args.html is None:
        data = orjson.dumps(dataclasses.asdict(layout), option=orjson.OPT_INDENT_2)
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.flush()
        return 0
    page = render_html(layout).encode("utf-8")
    if args.html == "-":
        sys.stdout.buffer.write(page)
        sys.stdout.flush()
        return 0
    try:
        Path(args.html).write_bytes(page)
    except OSError as exc:
        raise ConfigError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    tables = sum(len(s.tables) for s in layout.sections)
    print(f"wrote {args.html}: {layout.title} ({len(layout.sections)} sections, {tables} tables)")
    return 0


def _settings(config: ServiceConfig, name: str) -> OutstationSettings:
    for settings in config.outstations:
        if settings.name == name:
            confirm = settings.confirm if settings.confirm is not None else True
            return settings.model_copy(update={"manual": True, "confirm": confirm})
    known = ", ".join(s.name for s in config.outstations) or "none"
    raise ConfigError(
        f"no outstation is named {name!r} (outstations: {known}); name it with --outstation "
        f"{name}=HOST:PORT or in the --config file"
    )


async def _observe(config: ServiceConfig, settings: OutstationSettings) -> DescribeResult:
    master = Master(profiles=ProfileLoader(config.tables))
    try:
        try:
            await master.add(settings)
        except OperationError as exc:
            if exc.kind != "connection" or config.connect_wait is None:
                raise
            await master.connect(settings.name, config.connect_wait)
        await master.idle(settings.name)
        return await der_describe(master, settings.name)
    finally:
        await master.close()


def _describe(args: argparse.Namespace) -> int:
    if args.file is not None or args.html is not None:
        raise ConfigError("--from-outstation writes a document: give --out, not FILE.xml or --html")
    config = config_from_args(args, "config")
    result = asyncio.run(_observe(config, _settings(config, args.from_outstation)))
    data = result.document.encode("utf-8")
    if args.out is None or args.out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    try:
        Path(args.out).write_bytes(data)
    except OSError as exc:
        raise ConfigError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    counts = ", ".join(f"{count} {type}" for type, count in result.counts.items()) or "no points"
    say(
        f"wrote {args.out}: what {result.outstation} serves ({counts}; "
        f"{result.attributes} device attributes; function codes accepted "
        f"{', '.join(map(str, result.function_codes)) or 'none'})"
    )
    return 0
