"""``gridwire gateway``: IEEE 2030.5 DER controls from a head-end, applied to an IEEE 1815.2
DER over DNP3 (:mod:`gridwire.gateway`).

``--config FILE`` holds every setting (``server.*``, ``tls.*``, ``api.*`` as ``gridwire sep2``
takes them; ``der.*`` and ``gateway.*``); the gateway commands the DER, so it needs
``--allow-control`` (or ``der.allow_control``). With ``api.bind`` (or ``--api-bind``) the
management API is served there, ``sep2``'s routes with the gateway's beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import sys
from pathlib import Path
from typing import Any

from gridwire.errors import ConfigError
from gridwire.net.sockets import listening_socket

log = logging.getLogger("gridwire.gateway")


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "gateway",
        help="IEEE 2030.5 DER controls applied to an IEEE 1815.2 DER over DNP3",
        description="Schedule an IEEE 2030.5 head-end's DER controls on its clock and apply "
        "them to an IEEE 1815.2 DER over DNP3, posting the Responses they ask for.",
    )
    p.add_argument("--config", metavar="FILE", required=True, help="settings (TOML or .json)")
    p.add_argument("--allow-control", action="store_true", help="command the DER (required to run)")
    p.add_argument("--api-bind", metavar="HOST[:PORT]", help="where the management API listens")
    p.add_argument(
        "--log-level",
        type=str.lower,
        choices=["debug", "info", "warning", "error"],
        default="info",
        help="what to log on standard error (default: info)",
    )
    p.set_defaults(func=run)


def _logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("gridwire gateway: %(levelname)s %(message)s"))
    root = logging.getLogger("gridwire")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False


def run(args: argparse.Namespace) -> int:
    from gridwire.gateway.config import load_gateway_config

    config = load_gateway_config(Path(args.config), {"api.bind": args.api_bind})
    if not (args.allow_control or config.der.allow_control):
        raise ConfigError(
            "the gateway commands the DER: give --allow-control (or der.allow_control = true)"
        )
    _logging(args.log_level)
    address = config.sep2.api.address()
    listener = None if address is None else listening_socket(*address, "api.bind")
    asyncio.run(_serve(config, listener, args.log_level))
    return 0


async def _serve(config: Any, listener: socket.socket | None, log_level: str) -> None:
    from gridwire.derops import DerMaster
    from gridwire.gateway.runner import Gateway
    from gridwire.gateway.store import Store
    from gridwire.master import OutstationSettings
    from gridwire.sep2.client import Sep2Client

    der_config = config.der
    tables = Path(der_config.tables) if der_config.tables else None
    master = DerMaster(allow_control=True, tables=tables)
    client = Sep2Client(config.sep2)
    store_path = config.store_path(client.identity.lfdi)
    store = Store(store_path)
    try:
        store.claim(client.identity.lfdi)
    except ConfigError:
        store.close()
        raise
    await master.add(
        OutstationSettings(
            name="der",
            host=der_config.host,
            port=der_config.port,
            outstation_address=der_config.outstation_address,
            master_address=der_config.master_address,
            profile="ieee1815.2",
        )
    )
    seed = config.gateway.seed if config.gateway.seed is not None else client.identity.lfdi
    gateway = Gateway(
        client,
        master.der("der"),
        store,
        seed=seed,
        readings=config.gateway.readings,
        readings_seconds=config.gateway.readings_seconds,
        post_seconds=config.gateway.post_seconds,
        der_type=config.gateway.der_type,
        keep_seconds=config.gateway.keep_seconds,
    )
    await gateway.start()
    log.info(
        "gateway for LFDI %s to DER %s:%s; store %s",
        client.identity.lfdi,
        der_config.host,
        der_config.port,
        store_path,
    )
    try:
        if listener is None:
            await asyncio.Event().wait()
        else:
            await _api(gateway, listener, config.sep2.api.token, log_level)
    finally:
        await gateway.stop()
        await master.close()
        store.close()


async def _api(gateway: Any, listener: socket.socket, token: str | None, log_level: str) -> None:
    from uvicorn.config import LOGGING_CONFIG

    from gridwire.gateway.api import gateway_app
    from gridwire.net.http_serving import GuardedServer

    host, port = listener.getsockname()[:2]
    app = gateway_app(gateway, token=token, bound=(host, port))
    server = GuardedServer(
        app, log_level=log_level, log_config=LOGGING_CONFIG, access_log=False, lifespan="off"
    )
    log.info("management API on http://%s:%s/docs", host, port)
    await server.serve(sockets=[listener])
