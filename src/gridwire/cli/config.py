"""``gridwire config``, and the options ``console`` and ``serve`` share.

Every setting can come from a JSON file (``--config FILE``, the layout of
:class:`gridwire.service.config.ServiceConfig`); flags given override it. The outstation
flags (``--outstation-address``, ``--manual``, ``--reconnect``...) apply to every outstation:
those named with ``--outstation NAME=HOST:PORT`` and those of the file. ``gridwire config``
prints the complete configuration the options make, every setting shown, to edit.

Flag values are read here rather than by argparse, so a bad one is a one-line error naming
the flag.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from gridwire.errors import ConfigError
from gridwire.net.binding import parse_bind
from gridwire.service.config import (
    CONSOLE_PORT,
    SERVE_PORT,
    ServiceConfig,
    load_config,
    parse_size,
)

Mode = Literal["console", "serve", "config"]

_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
EXAMPLE_OUTSTATION = {"name": "outstation", "host": "127.0.0.1", "port": 20000}


def say(line: str) -> None:
    """A line for the user, at once (standard output may be a pipe)."""
    print(line, flush=True)


def service_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    *,
    help: str,
    description: str,
    default_bind: str,
) -> argparse.ArgumentParser:
    """The parser of ``console`` or ``serve``: the common options, ``--bind``, and the
    operations with their summaries below the options."""
    from gridwire.operations.table import default_table

    parser = subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog=default_table().help_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_common_options(parser)
    parser.add_argument("--bind", metavar="HOST[:PORT]", help=f"where to listen ({default_bind})")
    return parser


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``console``, ``serve`` and ``config``."""
    add = parser.add_argument
    add("--config", metavar="FILE", help="settings file (JSON); flags override it")
    add(
        "--outstation",
        action="append",
        metavar="NAME=HOST:PORT",
        help="an outstation to add at start (repeatable)",
    )
    add("--outstation-address", metavar="N", help="outstation link address (1024)")
    add("--master-address", metavar="N", help="master link address (1)")
    add("--manual", action="store_true", default=None, help="send nothing unasked")
    add("--reconnect", metavar="SECONDS|never", help="retry a lost connection (5)")
    add("--read-retries", metavar="N", help="times a read that timed out is sent again (0)")
    add("--connect-wait", metavar="SECONDS", help="keep trying to connect at start")
    add("--unsolicited", metavar="CLASSES", help="event classes to enable, e.g. 1,2,3")
    add("--integrity-interval", metavar="SECONDS", help="integrity scan every SECONDS")
    add("--event-interval", metavar="SECONDS", help="event scan every SECONDS")
    add("--output-interval", metavar="SECONDS", help="output status scan every SECONDS")
    add("--tls-ca", metavar="FILE", help="CA of the outstation's certificate")
    add("--tls-certificate", metavar="FILE", help="our certificate")
    add("--tls-key", metavar="FILE", help="our private key")
    add("--tls-server-name", metavar="NAME", help="name the outstation's certificate carries")
    add(
        "--profile",
        nargs="?",
        const="ieee1815.2",
        metavar="NAME",
        help="the outstations are IEEE 1815.2 DERs (profile ieee1815.2)",
    )
    add("--tables", metavar="FILE", help="the IEEE 1815.2 point map (else installed, else demo)")
    add("--device-profile", metavar="FILE", help="Device Profile document (XML)")
    add("--state-dir", metavar="DIR", help="where evaluations keep restore journals")
    add(
        "--allow-control",
        action="store_true",
        default=None,
        help="allow operations that command an outstation",
    )
    add("--capture", metavar="FILE", help="write every frame to a pcap file")
    add(
        "--trace-budget",
        metavar="SIZE",
        help="memory every outstation's trace keeps together, e.g. 64MiB (256MiB)",
    )
    add("--log-file", metavar="FILE", help="log here rather than to standard error")
    add("--log-level", metavar="LEVEL", help="DEBUG, INFO (default), WARNING or ERROR")


def _number(flag: str, text: str, kind: type[int] | type[float], minimum: float) -> Any:
    try:
        value = kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ConfigError(f"{flag} {text!r} is not {what}") from None
    if value < minimum or value != value:
        raise ConfigError(f"{flag} {text!r} is below {minimum:g}")
    return value


def _seconds(flag: str, text: str) -> float:
    value: float = _number(flag, text, float, 0)
    if flag.endswith("interval") and value == 0:
        raise ConfigError(f"{flag} must be more than 0 seconds")
    return value


def _classes(text: str) -> list[int]:
    if text.strip().lower() in ("", "none"):
        return []
    classes = []
    for part in text.split(","):
        if part.strip() not in ("1", "2", "3"):
            raise ConfigError(f"--unsolicited {text!r}: classes are 1, 2 and 3, e.g. 1,2,3")
        classes.append(int(part))
    return sorted(set(classes))


def _outstation(text: str) -> dict[str, Any]:
    name, sep, address = text.partition("=")
    if not sep or not name.strip() or not address:
        raise ConfigError(f"--outstation {text!r} is not NAME=HOST:PORT")
    host, port = parse_bind(address, 0, f"--outstation {name.strip()}")
    if port == 0:
        raise ConfigError(f"--outstation {text!r} names no port")
    return {"name": name.strip(), "host": host, "port": port}


def _outstation_fields(args: argparse.Namespace) -> dict[str, tuple[str, Any]]:
    """Outstation field -> (the flag that set it, value), for the flags given."""
    fields: dict[str, tuple[str, Any]] = {}
    for field, flag, kind, minimum in (
        ("outstation_address", "--outstation-address", int, 0),
        ("master_address", "--master-address", int, 0),
        ("read_retries", "--read-retries", int, 0),
    ):
        text = getattr(args, field)
        if text is not None:
            fields[field] = (flag, _number(flag, text, kind, minimum))
    for field, flag in (
        ("integrity_interval", "--integrity-interval"),
        ("event_interval", "--event-interval"),
        ("output_interval", "--output-interval"),
    ):
        text = getattr(args, field)
        if text is not None:
            fields[field] = (flag, _seconds(flag, text))
    if args.reconnect is not None:
        never = args.reconnect.strip().lower() in ("never", "none", "off")
        value = None if never else _seconds("--reconnect", args.reconnect)
        if value == 0:
            raise ConfigError("--reconnect must be more than 0 seconds (or never)")
        fields["reconnect"] = ("--reconnect", value)
    if args.manual:
        fields["manual"] = ("--manual", True)
    if args.profile is not None:
        fields["profile"] = ("--profile", args.profile)
    tls = (args.tls_ca, args.tls_certificate, args.tls_key)
    if any(t is not None for t in tls):
        if not all(t is not None for t in tls):
            raise ConfigError("TLS needs --tls-ca, --tls-certificate and --tls-key together")
        tls_settings = {"ca": tls[0], "certificate": tls[1], "key": tls[2]}
        tls_settings["server_name"] = args.tls_server_name
        fields["tls"] = ("--tls-ca", tls_settings)
    elif args.tls_server_name is not None:
        raise ConfigError("--tls-server-name needs --tls-ca, --tls-certificate and --tls-key")
    return fields


def config_from_args(args: argparse.Namespace, mode: Mode) -> ServiceConfig:
    """The configuration file (if any) with the flags given laid over it."""
    config = load_config(Path(args.config)) if args.config is not None else ServiceConfig()
    data = config.model_dump()
    flags: dict[str, str] = {}
    if args.allow_control:
        data["allow_control"] = True
    for field in ("tables", "device_profile", "capture", "log_file", "state_dir"):
        text = getattr(args, field)
        if text is not None:
            data[field] = Path(text)
    if args.connect_wait is not None:
        data["connect_wait"] = _seconds("--connect-wait", args.connect_wait)
    if args.trace_budget is not None:
        try:
            data["trace_budget"] = parse_size(args.trace_budget)
        except ValueError as exc:
            raise ConfigError(f"--trace-budget {exc}") from None
    if args.log_level is not None:
        level = args.log_level.upper()
        if level not in _LEVELS:
            raise ConfigError(f"--log-level {args.log_level!r} is not one of {', '.join(_LEVELS)}")
        data["log_level"] = level
    if mode in ("console", "serve") and args.bind is not None:
        parse_bind(args.bind, CONSOLE_PORT if mode == "console" else SERVE_PORT, "--bind")
        data[mode]["bind"] = args.bind
    if mode == "console":
        _token_flags(args, data["console"])
    outstations: list[dict[str, Any]] = data["outstations"]
    for text in args.outstation or []:
        entry = _outstation(text)
        outstations[:] = [o for o in outstations if o["name"] != entry["name"]]
        outstations.append(entry)
    fields = _outstation_fields(args)
    unsolicited = _classes(args.unsolicited) if args.unsolicited is not None else None
    for entry in outstations:
        for field, (flag, value) in fields.items():
            entry[field] = value
            flags[field] = flag
        if unsolicited is not None:
            entry["tasks"] = {**entry.get("tasks", {}), "enable_unsolicited": unsolicited}
            flags["tasks"] = "--unsolicited"
    try:
        return ServiceConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        named = [str(p) for p in err["loc"] if str(p) in flags]
        if named:
            raise ConfigError(f"{flags[named[0]]}: {err['msg']}") from None
        where = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"configuration: {where}: {err['msg']}") from None


def _token_flags(args: argparse.Namespace, console: dict[str, Any]) -> None:
    given = [
        f
        for f, on in (
            ("--token", args.token is not None),
            ("--new-token", args.new_token),
            ("--no-token", args.no_token),
        )
        if on
    ]
    if len(given) > 1:
        raise ConfigError(f"{' and '.join(given)} are alternatives: give one")
    if args.token is not None:
        if not args.token.strip():
            raise ConfigError("--token is empty")
        console.update(token=args.token, new_token=False)
    elif args.new_token:
        console.update(token=None, new_token=True)
    elif args.no_token:
        console.update(token=None, new_token=False)


def complete_config(config: ServiceConfig) -> bytes:
    """The configuration as JSON with every setting shown; an example outstation stands in
    when none is given, so that every outstation setting is shown too."""
    if not config.outstations:
        config = config.model_copy(
            update={
                "outstations": [
                    ServiceConfig.model_validate({"outstations": [EXAMPLE_OUTSTATION]}).outstations[
                        0
                    ]
                ]
            }
        )
    return orjson.dumps(config.model_dump(mode="json"), option=orjson.OPT_INDENT_2)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "config",
        help="print a complete configuration for console and serve, to edit",
        description="Print, as JSON, the complete configuration that the options given make "
        "(every setting shown; an example outstation when none is named). Save it, edit it, "
        "and give it to `gridwire console` or `gridwire serve` with --config.",
    )
    add_common_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args, "config")
    sys.stdout.buffer.write(complete_config(config) + b"\n")
    sys.stdout.flush()
    return 0
