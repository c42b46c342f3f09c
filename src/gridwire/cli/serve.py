"""``gridwire serve``: the master's operations, one JSON message per line over TCP, on this
machine only (127.0.0.1:8816 by default)."""

from __future__ import annotations

import argparse
import asyncio

from gridwire.cli._cluster import add_cluster_options, cluster_settings
from gridwire.cli.config import config_from_args, say, service_parser
from gridwire.service.config import SERVE_BIND


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = service_parser(
        subparsers,
        "serve",
        help="serve the master's operations one JSON line at a time (127.0.0.1:8816)",
        description="Serve the DNP3 master's operations over TCP on this machine: each line\n"
        'is a message {"op", "outstation", "params", "id"} answered by one line holding its\n'
        'envelope, in order; {"op": "subscribe"} adds the master\'s events; "stop" ends\n'
        "the service. Read-only unless --allow-control.",
        default_bind=f"{SERVE_BIND}, loopback only",
    )
    add_cluster_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gridwire.service.runner import configure_logging, run_line

    opener = None
    if args.cluster is not None:
        from gridwire.service.cluster import front_opener

        opener = front_opener(cluster_settings(args))
    config = config_from_args(args, "serve")
    configure_logging(config)
    return asyncio.run(run_line(config, announce=say, opener=opener))
