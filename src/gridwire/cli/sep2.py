"""``gridwire sep2``: the IEEE 2030.5 client with its management API.

Settings come from ``--config FILE`` (TOML, or JSON by its suffix) and the flags, which
override the file key by key. A certificate that cannot be used stops the command with one
line; a head-end that refuses the handshake or cannot be reached is reported in one line
each time that changes, while the API stays up and polling goes on. ``--once`` instead runs
one round, prints the time reading as JSON and exits (1 when no Time was observed), logging
the warnings (``--log-level``) that explain a reading left unavailable or incomplete.

The management API answers anyone who reaches it unless ``api.token`` (``--api-token``) is set.
Bound beyond loopback, a warning at start says so (and, with a token, that plain HTTP carries
it in clear).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import sys
from pathlib import Path
from typing import Any

import orjson

from gridwire.errors import ConfigError
from gridwire.net.binding import is_loopback, parse_bind
from gridwire.net.sockets import listening_socket
from gridwire.sep2.api import management_app
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import API_PORT, Sep2Config, build_config, read_config_file
from gridwire.sep2.service import Sep2Service


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "sep2",
        help="IEEE 2030.5 client: observe a head-end's clock and serve the management API",
        description="Observe an IEEE 2030.5 head-end's Time resources over mutual TLS and "
        "serve the management API (GET /api/v1/time, /api/v1/status, /docs).",
    )
    p.add_argument(
        "--server",
        metavar="URL",
        help="head-end base URL, https://host:port, with a path where its resources start "
        "(https://host:port/envoy); --dcap-path is taken under it",
    )
    p.add_argument("--tls-ca", metavar="FILE", help="CA certificate(s) of the head-end")
    p.add_argument("--tls-certificate", metavar="FILE", help="this device's certificate")
    p.add_argument("--tls-key", metavar="FILE", help="the device certificate's private key")
    p.add_argument(
        "--api-bind", metavar="HOST[:PORT]", help="where the management API listens (port 8830)"
    )
    p.add_argument(
        "--api-token",
        metavar="TOKEN",
        help="require this token on /api/v1/* (Authorization: Bearer TOKEN, or ?token=TOKEN)",
    )
    p.add_argument("--dcap-path", metavar="PATH", help="DeviceCapability path (default /dcap)")
    p.add_argument(
        "--fsa-stale-seconds",
        type=float,
        metavar="N",
        help="age beyond which an FSA's offset yields to a newer global one",
    )
    p.add_argument("--config", metavar="FILE", help="settings file (TOML, or .json)")
    p.add_argument(
        "--once",
        action="store_true",
        help="run one round, print the time reading as JSON and exit",
    )
    p.add_argument(
        "--log-level",
        type=str.lower,  # INFO as well as info, as every other command takes it
        choices=["debug", "info", "warning", "error"],
        help="what to log on standard error (default: info; warning with --once)",
    )
    p.set_defaults(func=run)


def load_settings(args: argparse.Namespace) -> Sep2Config:
    if args.api_bind is not None:
        parse_bind(args.api_bind, API_PORT, "--api-bind")
    data = read_config_file(Path(args.config)) if args.config else None
    return build_config(
        data,
        {
            "server.url": args.server,
            "server.dcap_path": args.dcap_path,
            "server.fsa_stale_seconds": args.fsa_stale_seconds,
            "tls.ca": args.tls_ca,
            "tls.certificate": args.tls_certificate,
            "tls.key": args.tls_key,
            "api.bind": args.api_bind,
            "api.token": args.api_token,
        },
    )


def _logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("gridwire sep2: %(levelname)s %(message)s"))
    root = logging.getLogger("gridwire")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False


def exposure_warning(host: str, token: str | None) -> str | None:
    """What to warn of when the management API listens on ``host``: nothing on loopback."""
    if is_loopback(host):
        return None
    if token is None:
        return (
            f"api.bind {host} is beyond loopback and api.token is not set: anyone who can "
            "reach it reads this device's status and clock (set api.token or --api-token)"
        )
    return (
        f"api.bind {host} is beyond loopback: the API is plain HTTP, so api.token crosses "
        "the network in clear (put it behind TLS, or bind to loopback)"
    )


def run(args: argparse.Namespace) -> int:
    config = load_settings(args)
    if args.once:
        _logging(args.log_level or "warning")
        return asyncio.run(_once(config))
    address = config.api.address()
    if address is None:
        raise ConfigError("api.bind is not set (give --api-bind HOST:PORT or api.bind)")
    host, port = address
    log_level = args.log_level or "info"
    _logging(log_level)
    client = Sep2Client(config)
    warning = exposure_warning(host, config.api.token)
    if warning is not None:
        logging.getLogger("gridwire.sep2").warning("%s", warning)
    listener = listening_socket(host, port, "api.bind")
    asyncio.run(_serve(client, listener, log_level))
    return 0


async def _once(config: Sep2Config) -> int:
    client = Sep2Client(config)
    try:
        reading = await client.observe_once()
    finally:
        await client.stop()
    print(orjson.dumps(reading).decode())
    return 0 if reading.available else 1


async def _serve(client: Sep2Client, listener: socket.socket, log_level: str) -> None:
    from uvicorn.config import LOGGING_CONFIG

    from gridwire.net.http_serving import GuardedServer
    from gridwire.process.runtime import settle_heap

    host, port = listener.getsockname()[:2]
    app = management_app(Sep2Service(client), token=client.config.api.token, bound=(host, port))
    # The connection limits of every gridwire HTTP service (header, send and keep-alive
    # timeouts, a cap on connections): gridwire.net.connection_limits.Limits.
    server = GuardedServer(
        app, log_level=log_level, log_config=LOGGING_CONFIG, access_log=False, lifespan="off"
    )
    logging.getLogger("gridwire.sep2").info(
        "device LFDI %s SFDI %s; management API on http://%s:%s/docs",
        client.identity.lfdi,
        client.identity.sfdi,
        host,
        port,
    )
    await client.start()
    # What start-up allocated is never walked by a collection again: a full collection of
    # it held the loop 45 ms (110 ms for a status under the fuzz run's load).
    settle_heap()
    try:
        await server.serve(sockets=[listener])
    finally:
        await client.stop()
