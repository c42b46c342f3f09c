"""``gridwire sim``'s multi-drop and serial/UDP options (DESIGN D189): several link addresses
answering on one TCP port (``--addresses``), on a serial device (``--serial``) or on a UDP
socket (``--udp``), each address its own device."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable

from gridwire.channels.settings import SerialChannel
from gridwire.errors import ConfigError, ConnectionFailed
from gridwire.outstation.device import Device
from gridwire.outstation.multidrop import DropServer
from gridwire.simulator.config import SimSettings


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--addresses",
        metavar="A,B,...",
        help="answer as several outstations, one device at each link address (multi-drop)",
    )
    parser.add_argument("--serial", metavar="DEVICE", help="answer on a serial device, not TCP")
    parser.add_argument("--baud", type=int, default=9600, help="with --serial: baud (9600)")
    parser.add_argument(
        "--parity", choices=["none", "even", "odd"], default="none", help="with --serial"
    )
    parser.add_argument(
        "--udp", action="store_true", help="answer datagrams on --bind's UDP port, not TCP"
    )


def wanted(args: argparse.Namespace) -> bool:
    """Whether the options ask for the multi-drop server."""
    return bool(args.addresses or args.serial or args.udp)


def addresses_of(args: argparse.Namespace, settings: SimSettings) -> list[int]:
    if not args.addresses:
        return [settings.outstation.outstation_address]
    try:
        out = [int(part) for part in args.addresses.split(",")]
    except ValueError:
        raise ConfigError(
            f"--addresses {args.addresses!r}: give numbers, such as 1024,1025"
        ) from None
    if len(set(out)) != len(out) or any(not 0 <= a <= 0xFFEF for a in out):
        raise ConfigError("--addresses: each address once, each in 0..65519")
    if settings.outstation.master_address in out:
        raise ConfigError("--addresses: the master's address is not an outstation's")
    if args.serial and args.udp:
        raise ConfigError("--serial or --udp, not both")
    if settings.tls is not None and (args.serial or args.udp):
        raise ConfigError("TLS is for TCP: not with --serial or --udp")
    return out


async def serve(
    args: argparse.Namespace,
    settings: SimSettings,
    make_device: Callable[[], tuple[Device, str]],
) -> int:
    addresses = addresses_of(args, settings)
    devices: dict[int, Device] = {}
    what = ""
    for address in addresses:
        devices[address], what = make_device()
    server = DropServer(devices, config=settings.outstation, tick_interval=settings.tick)
    try:
        if args.serial:
            channel = SerialChannel(
                name="sim", device=args.serial, baud=args.baud, parity=args.parity
            )
            await server.serve_serial(channel)
            where = f"serial {args.serial} {args.baud}"
        elif args.udp:
            await server.serve_udp(settings.host, settings.port)
            where = f"UDP {settings.host}:{server.port}"
        else:
            await server.serve_tcp(settings.host, settings.port)
            where = f"TCP {settings.host}:{server.port}"
    except (OSError, ConnectionFailed) as exc:
        raise ConfigError(f"cannot serve: {exc}") from None
    listed = ", ".join(str(a) for a in addresses)
    print(
        f"gridwire sim: {what}; outstations {listed}, master "
        f"{settings.outstation.master_address}; listening on {where}",
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
