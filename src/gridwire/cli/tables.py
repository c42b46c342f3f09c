"""``gridwire tables``: install the IEEE 1815.2 point map built from IEEE's workbook.

- ``build WORKBOOK.xlsx [--out FILE]`` reads a workbook the user downloaded from IEEE;
- ``fetch [--url URL] [--out FILE]`` downloads it from IEEE first;
- ``demo [--out FILE]`` writes the built-in demo map, an example of the JSON map format.

The map goes to ~/.gridwire/ieee1815.2-tables.json unless ``--out`` says otherwise; the
simulated DER and the master use it from there. IEEE does not allow the tables to be
redistributed: keep the file to yourself.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gridwire.der.demo import demo_map
from gridwire.der.fetch import IEEE_DOWNLOAD_URL, fetch_tables
from gridwire.der.mapfile import dumps, save_map
from gridwire.der.store import default_tables_path
from gridwire.der.workbook import WorkbookResult, read_workbook


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tables",
        help="install the IEEE 1815.2 point map from IEEE's workbook",
        description="Build the IEEE 1815.2 point map from IEEE's companion workbook.",
    )
    actions = parser.add_subparsers(dest="tables_action", metavar="ACTION", required=True)
    out_help = f"where to write the map (default {default_tables_path()})"

    build = actions.add_parser("build", help="read a workbook downloaded from IEEE")
    build.add_argument("workbook", type=Path, help="the .xlsx file")
    build.add_argument("--out", type=Path, help=out_help)
    build.set_defaults(func=_build)

    fetch = actions.add_parser("fetch", help="download IEEE's workbook and read it")
    fetch.add_argument(
        "--url",
        default=IEEE_DOWNLOAD_URL,
        help="where to download from (default IEEE's download of the standard)",
    )
    fetch.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")
    fetch.add_argument("--out", type=Path, help=out_help)
    fetch.set_defaults(func=_fetch)

    demo = actions.add_parser("demo", help="write the built-in demo map as JSON")
    demo.add_argument("--out", type=Path, help="file to write (default: standard output)")
    demo.set_defaults(func=_demo)


def _install(result: WorkbookResult, out: Path | None) -> int:
    path = out or default_tables_path()
    for warning in result.warnings:
        print(f"gridwire tables: warning: {warning}", file=sys.stderr)
    save_map(result.point_map, path)
    print(f"wrote {path}: {result.point_map.describe()}")
    print("IEEE does not allow its tables to be redistributed: keep this file to yourself.")
    return 0


def _build(args: argparse.Namespace) -> int:
    return _install(read_workbook(args.workbook), args.out)


def _fetch(args: argparse.Namespace) -> int:
    return _install(fetch_tables(args.url, timeout=args.timeout), args.out)


def _demo(args: argparse.Namespace) -> int:
    if args.out is None:
        sys.stdout.buffer.write(dumps(demo_map()))
        return 0
    save_map(demo_map(), args.out)
    print(f"wrote {args.out}: {demo_map().describe()}")
    return 0
