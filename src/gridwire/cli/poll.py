"""``gridwire poll``: read an outstation once (an integrity poll) and print what it answered:
a table of the objects, or with ``--json`` the Exchange record."""

from __future__ import annotations

import argparse
import asyncio
import sys

from pydantic import ValidationError

from gridwire.errors import ConfigError
from gridwire.master import Master, OutstationSettings
from gridwire.master.records import Exchange
from gridwire.master.scans import SCAN_KINDS
from gridwire.operations.encoding import dumps

NAME = "poll"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "poll",
        help="read an outstation once and print what it answered",
        description="Connect to an outstation, read it once (an integrity poll unless --kind "
        "says otherwise) and print the objects it answered, or with --json the Exchange "
        "record. Nothing else is sent: no task, no time write. Exit status 0 when the read "
        "completed, 1 when it did not, 2 when no connection could be made.",
    )
    parser.add_argument("--host", required=True, help="the outstation's address")
    parser.add_argument("--port", required=True, help="the outstation's port")
    parser.add_argument("--outstation-address", default="1024", metavar="N", help="(1024)")
    parser.add_argument("--master-address", default="1", metavar="N", help="(1)")
    parser.add_argument("--kind", default="integrity", help=f"one of {', '.join(SCAN_KINDS)}")
    parser.add_argument("--timeout", default="5", metavar="SECONDS", help="response timeout (5)")
    parser.add_argument("--json", action="store_true", help="print the Exchange record as JSON")
    parser.set_defaults(func=run)


def settings_of(args: argparse.Namespace) -> OutstationSettings:
    values: dict[str, float] = {}
    for flag, text, kind in (
        ("--port", args.port, int),
        ("--outstation-address", args.outstation_address, int),
        ("--master-address", args.master_address, int),
        ("--timeout", args.timeout, float),
    ):
        try:
            values[flag] = kind(text)
        except ValueError:
            raise ConfigError(f"{flag} {text!r} is not a number") from None
    if args.kind not in SCAN_KINDS:
        raise ConfigError(f"--kind {args.kind!r} is not one of {', '.join(SCAN_KINDS)}")
    try:
        return OutstationSettings(
            name=NAME,
            host=args.host,
            port=int(values["--port"]),
            outstation_address=int(values["--outstation-address"]),
            master_address=int(values["--master-address"]),
            response_timeout=values["--timeout"],
            manual=True,
            confirm=True,
            reconnect=None,
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"{'.'.join(map(str, err['loc']))}: {err['msg']}") from None


async def poll(settings: OutstationSettings, kind: str) -> Exchange:
    """Connect, read once, disconnect."""
    master = Master()
    try:
        await master.add(settings)
        return await master.scan(NAME, kind)
    finally:
        await master.close()


def table(exchange: Exchange) -> str:
    """The exchange as text: a summary line, then one line per object."""
    indications = ", ".join(exchange.indications) or "none"
    lines = [
        f"{exchange.function} {exchange.outcome}: {exchange.fragments} fragment(s), "
        f"{exchange.object_count} object(s), {exchange.elapsed_ms:.1f} ms; "
        f"indications {indications}"
    ]
    if exchange.objects:
        lines.append(f"{'type':8} {'g/v':7} {'index':>6}  {'value':<22} flags")
    for obj in exchange.objects:
        value = obj.value.hex() if isinstance(obj.value, bytes) else obj.value
        where = f"{obj.group}/{obj.variation}"
        flags = ",".join(obj.flags or [])
        event = " (event)" if obj.event else ""
        index = "" if obj.index is None else obj.index
        lines.append(f"{obj.type or '-':8} {where:7} {index!s:>6}  {value!s:<22} {flags}{event}")
    lines.extend(f"undecoded at {part.offset}: {part.reason}" for part in exchange.undecoded)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    exchange = asyncio.run(poll(settings, args.kind))
    if args.json:
        sys.stdout.buffer.write(dumps(exchange) + b"\n")
        sys.stdout.flush()
    else:
        print(table(exchange))
    return 0 if exchange.outcome == "complete" else 1
