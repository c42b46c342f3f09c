"""``gridwire document FILE.xml [--html OUT]``: lay out a Device Profile document.

Without ``--html`` the layout is printed as JSON (what ``der.document`` answers); with it, a
standalone printable HTML page is written to OUT (``-`` for standard output). The document is
read as ``der.document`` reads one: a file over 8 MiB, with a DTD or an entity, not XML, or
not a Device Profile is refused, naming the rule.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

import orjson

from gridwire.devprofile.html import render_html
from gridwire.devprofile.layout import lay_out
from gridwire.devprofile.reader import read_document_file
from gridwire.errors import ConfigError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "document",
        help="lay out a DNP3 Device Profile document (XML) as tables, or as a printable page",
        description="Read a DNP3 Device Profile document (any edition or vendor) and print "
        "its layout as JSON, the der.document operation's result; with --html, write it as "
        "a standalone printable HTML page instead.",
    )
    parser.add_argument("file", type=Path, metavar="FILE.xml", help="the Device Profile")
    parser.add_argument(
        "--html", metavar="OUT", help="write a printable HTML page to OUT ('-': standard output)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
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
