"""The ``--cluster`` options of ``worker``, ``console`` and ``serve`` (D153)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gridwire.errors import ConfigError


def add_cluster_options(parser: argparse.ArgumentParser, required: bool = False) -> None:
    add = parser.add_argument
    add(
        "--cluster",
        metavar="URL[,URL...]",
        required=required,
        help="the NATS server(s) of a gridwire cluster (nats:// or tls://; credentials "
        "needed off loopback)" + ("" if required else ": serve every outstation of the cluster"),
    )
    add("--cluster-user", metavar="USER", help="NATS user (with --cluster-password)")
    add("--cluster-password", metavar="PASSWORD", help="NATS password")
    add("--cluster-token", metavar="TOKEN", help="NATS token")
    add("--cluster-nkey", metavar="FILE", help="NATS nkey seed file")
    add("--cluster-creds", metavar="FILE", help="NATS credentials (.creds) file")
    add("--cluster-tls-ca", metavar="FILE", help="CA of the NATS server's certificate")
    add("--cluster-tls-certificate", metavar="FILE", help="our certificate for NATS")
    add("--cluster-tls-key", metavar="FILE", help="our private key for NATS")
    add("--cluster-prefix", metavar="NAME", help="name of the cluster's subjects and buckets")
    add(
        "--cluster-lease",
        metavar="SECONDS",
        help="lease time, when this process creates the cluster's buckets (10)",
    )
    add(
        "--cluster-replicas",
        metavar="N",
        help="copies of each bucket, when this process creates them (1; 3 on a NATS cluster)",
    )


def cluster_settings(args: argparse.Namespace) -> Any:
    """The ClusterSettings the flags give (ConfigError for a bad one)."""
    from gridwire.cluster.settings import ClusterSettings

    given: dict[str, Any] = {}
    for flag, field in (
        ("cluster_user", "user"),
        ("cluster_password", "password"),
        ("cluster_token", "token"),
        ("cluster_prefix", "prefix"),
    ):
        if getattr(args, flag) is not None:
            given[field] = getattr(args, flag)
    for flag, field in (
        ("cluster_nkey", "nkeys_seed"),
        ("cluster_creds", "credentials"),
        ("cluster_tls_ca", "tls_ca"),
        ("cluster_tls_certificate", "tls_certificate"),
        ("cluster_tls_key", "tls_key"),
    ):
        if getattr(args, flag) is not None:
            given[field] = Path(getattr(args, flag))
    if args.cluster_lease is not None:
        given["lease"] = _number("--cluster-lease", args.cluster_lease, float, 0.5)
    if args.cluster_replicas is not None:
        given["replicas"] = _number("--cluster-replicas", args.cluster_replicas, int, 1)
    return ClusterSettings.from_url(args.cluster, **given)


def _number(flag: str, text: str, kind: type[int] | type[float], minimum: float) -> Any:
    try:
        value = kind(text)
    except ValueError:
        raise ConfigError(f"{flag} {text!r} is not a number") from None
    if not value >= minimum:
        raise ConfigError(f"{flag} {text!r} is below {minimum:g}")
    return value
