"""``gridwire worker --cluster URL``: a master that takes outstations of a gridwire cluster
under leases and answers the operations its fronts route to it (D152-D157)."""

from __future__ import annotations

import argparse
import asyncio

from gridwire.cli._cluster import add_cluster_options, cluster_settings
from gridwire.cli.config import add_common_options, config_from_args, say
from gridwire.errors import ConfigError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="take outstations of a gridwire cluster (on NATS) and poll them",
        description="Join a gridwire cluster: take outstations from the cluster's\n"
        "outstations bucket under leases (up to --capacity, an even share of them), connect\n"
        "and poll them, and answer the operations fronts (console/serve --cluster) route\n"
        "here. Read-only unless --allow-control (and the front's as well).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_cluster_options(parser, required=True)
    parser.add_argument(
        "--capacity", metavar="N", default="10000", help="outstations held at most (10000)"
    )
    parser.add_argument("--name", metavar="NAME", help="the worker's name (host-pid-random)")
    add_common_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gridwire.service.cluster import run_worker
    from gridwire.service.runner import configure_logging

    settings = cluster_settings(args)
    config = config_from_args(args, "config")
    if config.outstations:
        raise ConfigError("a worker takes its outstations from the cluster: add them at a front")
    try:
        capacity = int(args.capacity)
    except ValueError:
        raise ConfigError(f"--capacity {args.capacity!r} is not a whole number") from None
    if capacity < 1:
        raise ConfigError("--capacity must be at least 1")
    if args.name is not None and not all(c.isalnum() or c in "-_" for c in args.name):
        raise ConfigError("--name: letters, digits, - and _ only")
    configure_logging(config)
    return asyncio.run(
        run_worker(config, settings, capacity=capacity, name=args.name, announce=say)
    )
