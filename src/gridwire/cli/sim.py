"""``gridwire sim``: a DNP3 outstation for masters to talk to, serving the simulated IEEE 1815.2
DER (``--der``) or a generic database (``--database FILE``, or 10 points of every type)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path

from gridwire.cli import sim_drops
from gridwire.der.store import load_point_map
from gridwire.errors import ConfigError
from gridwire.net.binding import parse_bind
from gridwire.net.sockets import listen_failure
from gridwire.outstation.config import DEFERRABLE, RANGE_GAPS
from gridwire.outstation.database_file import database_from_json, default_database, load_database
from gridwire.outstation.device import Device
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import OutstationServer
from gridwire.simulator.config import DEFAULT_PORT, SimSettings, load_settings, tls_settings
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile
from gridwire.simulator.misbehaviour import SIM_MISBEHAVIOURS, split_misbehaviours


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "sim",
        help="run a DNP3 outstation: the simulated IEEE 1815.2 DER or a generic database",
        description=(
            "Serve a DNP3 outstation on TCP (or TLS). With --der it is a simulated IEEE 1815.2 "
            "DER serving the installed tables (or --tables FILE, else the built-in demo map); "
            "without it a generic database (--database FILE, else 10 points of every type)."
        ),
    )
    parser.add_argument("--bind", metavar="HOST[:PORT]", help="where to listen (127.0.0.1:20000)")
    parser.add_argument("--outstation-address", type=int, help="link address (1024)")
    parser.add_argument("--master-address", type=int, help="the master's link address (1)")
    parser.add_argument("--der", action="store_true", default=None, help="serve the DER")
    parser.add_argument("--tables", type=Path, metavar="FILE", help="point map to serve")
    parser.add_argument("--database", type=Path, metavar="FILE", help="generic database (JSON)")
    parser.add_argument(
        "--unsolicited", action="store_true", default=None, help="allow unsolicited responses"
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="settings file (JSON)")
    parser.add_argument("--tls-ca", type=Path, metavar="FILE", help="CA of master certificates")
    parser.add_argument("--tls-certificate", type=Path, metavar="FILE", help="our certificate")
    parser.add_argument("--tls-key", type=Path, metavar="FILE", help="our private key")
    parser.add_argument(
        "--tls-allow",
        action="append",
        metavar="NAME|SHA256",
        help="a master certificate let in, by common name or fingerprint (repeatable)",
    )
    parser.add_argument(
        "--accept",
        choices=["replace", "refuse"],
        help="a second master connection replaces the first (default) or is refused",
    )
    parser.add_argument(
        "--range-gaps",
        choices=list(RANGE_GAPS),
        help=(
            "a read naming an index with no point: refuse it whole (default) or answer the "
            "points there are (as opendnp3 does); both with PARAMETER_ERROR"
        ),
    )
    parser.add_argument(
        "--write-device-profile",
        type=Path,
        metavar="FILE",
        help="with --der: write the DER's Device Profile document (XML) to FILE at start",
    )
    parser.add_argument(
        "--misbehave",
        action="append",
        choices=sorted(SIM_MISBEHAVIOURS),
        metavar="NAME",
        help=(
            "break a rule on purpose, to see a check fail (repeatable): "
            + "; ".join(f"{name}: {what}" for name, what in SIM_MISBEHAVIOURS.items())
        ),
    )
    parser.add_argument(
        "--files",
        type=Path,
        metavar="DIR",
        help="serve the files of DIR by the file procedures (group 70), read-only",
    )
    parser.add_argument(
        "--files-writable",
        action="store_true",
        help="with --files: masters may write, append to and delete files there",
    )
    parser.add_argument(
        "--files-defer",
        action="append",
        choices=DEFERRABLE,
        metavar="REQUEST",
        help=(
            "with --files: answer REQUEST with a null response now and its answer later as a "
            "file event (class 1), as an outstation busy with its file system does "
            f"(repeatable; one of {', '.join(DEFERRABLE)})"
        ),
    )
    sim_drops.add_options(parser)
    parser.add_argument("--verbose", "-v", action="store_true", help="log connections")
    parser.set_defaults(func=run)


def settings_of(args: argparse.Namespace) -> SimSettings:
    """The settings file (if any) with the flags given over it."""
    settings = load_settings(args.config) if args.config is not None else SimSettings()
    config = settings.outstation
    if args.bind is not None:
        settings.host, settings.port = parse_bind(args.bind, DEFAULT_PORT, "--bind")
    if args.outstation_address is not None:
        config.outstation_address = args.outstation_address
    if args.master_address is not None:
        config.master_address = args.master_address
    if args.der is not None:
        settings.der = True
    if args.tables is not None:
        settings.tables = args.tables
    if args.database is not None:
        settings.database = args.database
    if args.unsolicited is not None:
        config.unsolicited = True
    if args.accept is not None:
        settings.accept = args.accept
    if args.range_gaps is not None:
        config.range_gaps = args.range_gaps
    if args.misbehave:
        outstation, der = split_misbehaviours(args.misbehave)
        config.misbehave = config.misbehave | outstation
        settings.der_misbehave = settings.der_misbehave | der
    if args.files is not None:
        config.files = args.files.resolve()
    if args.files_writable:
        config.files_writable = True
    if args.files_defer:
        config.files_defer = tuple(dict.fromkeys((*config.files_defer, *args.files_defer)))
    if config.files_writable and config.files is None:
        raise ConfigError("--files-writable needs --files DIR")
    if config.files_defer and config.files is None:
        raise ConfigError("--files-defer needs --files DIR")
    tls_files = (args.tls_ca, args.tls_certificate, args.tls_key)
    if any(f is not None for f in tls_files):
        if not all(f is not None for f in tls_files):
            raise ConfigError("TLS needs --tls-ca, --tls-certificate and --tls-key together")
        settings.tls = tls_settings(args.tls_ca, args.tls_certificate, args.tls_key)
    if args.tls_allow:
        if settings.tls is None:
            raise ConfigError("--tls-allow needs TLS (--tls-ca, --tls-certificate, --tls-key)")
        settings.tls = settings.tls.model_copy(update={"allow": tuple(args.tls_allow)})
    config.validate()
    if settings.der and settings.database is not None:
        raise ConfigError("--der serves the point map; --database is for the generic outstation")
    if not settings.der and settings.tables is not None:
        raise ConfigError("--tables is the DER's point map: give --der too")
    if not settings.der and settings.der_misbehave:
        names = ", ".join(sorted(settings.der_misbehave))
        raise ConfigError(f"misbehave {names} is the simulated DER's: give --der too")
    return settings


def device_of(settings: SimSettings) -> tuple[Device, str]:
    """The device to serve and one line describing it."""
    if settings.der:
        point_map = load_point_map(settings.tables)
        device = SimulatedDer(
            point_map, variations=settings.variations, misbehave=settings.der_misbehave
        )
        return device, f"simulated DER: {point_map.describe()}"
    if isinstance(settings.database, Path):
        database = load_database(settings.database)
        what = f"database {settings.database}"
    elif isinstance(settings.database, dict):
        database = database_from_json(settings.database)
        what = "database from the config file"
    else:
        database = default_database()
        what = "generic database (10 points of every type)"
    return GenericDevice(database), what


def run(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    profile: Path | None = args.write_device_profile
    if profile is not None and not settings.der:
        raise ConfigError("--write-device-profile writes the DER's document: give --der too")
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if sim_drops.wanted(args):
        if profile is not None:
            raise ConfigError("--write-device-profile serves one outstation: not with these")
        return asyncio.run(sim_drops.serve(args, settings, lambda: device_of(settings)))
    device, what = device_of(settings)
    return asyncio.run(_serve(settings, device, what, profile))


def _write_profile(path: Path, device: Device, settings: SimSettings, port: int) -> None:
    """The DER's own Device Profile, as served on ``port``, written to ``path``."""
    if not isinstance(device, SimulatedDer):
        raise ConfigError("--write-device-profile writes the DER's document: give --der too")
    document = der_device_profile(device, settings.outstation, port)
    try:
        path.write_bytes(document)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"gridwire sim: wrote the DER's Device Profile to {path}", flush=True)


async def _serve(
    settings: SimSettings, device: Device, what: str, profile: Path | None = None
) -> int:
    server = OutstationServer(
        device,
        host=settings.host,
        port=settings.port,
        config=settings.outstation,
        tls=settings.tls,
        accept="refuse" if settings.accept == "refuse" else "replace",
        tick_interval=settings.tick,
    )
    try:
        await server.start()
    except OSError as exc:
        raise listen_failure(settings.host, settings.port, exc) from None
    if profile is not None:
        try:
            _write_profile(profile, device, settings, server.port)
        except ConfigError:
            await server.close()
            raise
    config = settings.outstation
    scheme = "TLS" if settings.tls is not None else "TCP"
    print(
        f"gridwire sim: {what}; outstation {config.outstation_address}, master "
        f"{config.master_address}; listening on {scheme} {settings.host}:{server.port}"
        f"{'; unsolicited allowed' if config.unsolicited else ''}",
        flush=True,
    )
    if config.files is not None:
        access = "writable" if config.files_writable else "read-only"
        print(f"gridwire sim: serving the files of {config.files} ({access})", flush=True)
    broken = sorted(config.misbehave | settings.der_misbehave)
    if broken:
        print(
            f"gridwire sim: deviating on purpose, {len(broken)} outstation deviation(s) on "
            "(--misbehave): " + "; ".join(f"{name}: {SIM_MISBEHAVIOURS[name]}" for name in broken),
            flush=True,
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await server.close()
    print("gridwire sim: stopped", file=sys.stderr, flush=True)
    return 0
