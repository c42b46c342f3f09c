"""``gridwire console``: the web console and the master's operations over HTTP (routes,
server-sent events, OpenAPI), by default on 127.0.0.1:8815; ``--demo`` serves a simulated
DER to try it on."""

from __future__ import annotations

import argparse
import asyncio

from gridwire.cli._cluster import add_cluster_options, cluster_settings
from gridwire.cli.config import config_from_args, say, service_parser
from gridwire.errors import ConfigError
from gridwire.service.config import CONSOLE_BIND, ServiceConfig


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = service_parser(
        subparsers,
        "console",
        help="serve the web console and the master's operations over HTTP (127.0.0.1:8815)",
        description="Serve the web console (GET /, for a browser) and the DNP3 master's\n"
        "operations as JSON over HTTP: POST /api/<operation>, POST /api (message form), GET\n"
        "/events (server-sent events), GET /openapi.json. Read-only unless --allow-control.\n"
        "A token is made at start unless --token or --no-token says otherwise; binding\n"
        "beyond loopback needs one.",
        default_bind=CONSOLE_BIND,
    )
    parser.add_argument("--token", metavar="TOKEN", help="the token clients must send")
    parser.add_argument(
        "--new-token", action="store_true", help="make a token at start and print it (default)"
    )
    parser.add_argument("--no-token", action="store_true", help="serve without a token")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="also run a simulated IEEE 1815.2 DER and add it as outstation 'der'",
    )
    add_cluster_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gridwire.service.runner import configure_logging

    config = config_from_args(args, "console")
    if args.cluster is not None:
        from gridwire.service.cluster import front_opener
        from gridwire.service.runner import run_console

        opener = front_opener(cluster_settings(args))
        if args.demo:
            raise ConfigError("--demo runs its DER in this process: not with --cluster")
        configure_logging(config)
        return asyncio.run(run_console(config, announce=say, opener=opener))
    configure_logging(config)
    return asyncio.run(_console(config, args.demo))


async def _console(config: ServiceConfig, demo: bool) -> int:
    from gridwire.cli.demo import demo_der
    from gridwire.service.runner import run_console

    if not demo:
        return await run_console(config, announce=say)
    async with demo_der(config, say) as der:
        return await run_console(config, extra=[der], announce=say)
