"""How a worker or a front reaches the cluster: the NATS URLs, credentials and TLS, and the
rule that a NATS server off loopback is refused without credentials (D153).

    settings = ClusterSettings.from_url("nats://127.0.0.1:4222")
    nc = await connect(settings, name="gridwire worker")

Credentials may be in the URL (``nats://user:password@host:4222``, ``nats://token@host``) or
given apart (``user``/``password``, ``token``, ``nkeys_seed`` file, ``credentials`` file).
TLS: a ``tls://`` URL, or ``tls_ca`` (with ``tls_certificate``/``tls_key`` for a client
certificate)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from gridwire.errors import ConfigError
from gridwire.net.binding import is_loopback

SCHEMES = ("nats", "tls")
DEFAULT_LEASE = 10.0
"""Seconds a worker's lease lasts unrenewed (the leases bucket's TTL when it is created)."""


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """Where the cluster is and how to prove who we are to it."""

    servers: tuple[str, ...]
    user: str | None = None
    password: str | None = None
    token: str | None = None
    nkeys_seed: Path | None = None
    credentials: Path | None = None
    tls_ca: Path | None = None
    tls_certificate: Path | None = None
    tls_key: Path | None = None
    prefix: str = "gridwire"
    lease: float = DEFAULT_LEASE
    replicas: int = 1
    """Copies of each bucket kept by a NATS cluster (when this process creates them)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_url(cls, url: str, **given: Any) -> ClusterSettings:
        """Settings from ``--cluster URL[,URL...]`` and the options given; ConfigError when a
        URL cannot be used or a non-loopback server would be reached without credentials."""
        servers = tuple(part.strip() for part in url.split(",") if part.strip())
        if not servers:
            raise ConfigError("--cluster: no NATS URL given")
        settings = cls(servers, **given)
        settings.check()
        return settings

    @property
    def has_credentials(self) -> bool:
        return any(
            value is not None
            for value in (self.user, self.token, self.nkeys_seed, self.credentials)
        ) or any(_url_credentials(url) for url in self.servers)

    @property
    def uses_tls(self) -> bool:
        return self.tls_ca is not None or any(url.startswith("tls://") for url in self.servers)

    def check(self) -> None:
        """Refuse what cannot work or would carry controls unauthenticated."""
        for url in self.servers:
            parts = urlsplit(url if "://" in url else f"nats://{url}")
            if parts.scheme not in SCHEMES:
                raise ConfigError(f"--cluster {url!r}: the scheme must be nats:// or tls://")
            if not parts.hostname:
                raise ConfigError(f"--cluster {url!r}: no host")
            if not is_loopback(parts.hostname) and not self.has_credentials:
                raise ConfigError(
                    f"--cluster {url}: a NATS server off loopback needs credentials "
                    "(user:password@ or token@ in the URL, --cluster-user, --cluster-token, "
                    "--cluster-nkey or --cluster-creds), since the cluster carries controls"
                )
        if (self.user is None) != (self.password is None):
            raise ConfigError("--cluster-user and --cluster-password go together")
        if (self.tls_certificate is None) != (self.tls_key is None):
            raise ConfigError("--cluster-tls-certificate and --cluster-tls-key go together")
        for path in (self.nkeys_seed, self.credentials, self.tls_ca, self.tls_certificate):
            if path is not None and not path.is_file():
                raise ConfigError(f"cluster: file {path} not found")

    def tls_context(self) -> ssl.SSLContext | None:
        if not self.uses_tls:
            return None
        context = ssl.create_default_context(
            cafile=str(self.tls_ca) if self.tls_ca is not None else None
        )
        if self.tls_certificate is not None and self.tls_key is not None:
            context.load_cert_chain(str(self.tls_certificate), str(self.tls_key))
        return context

    def connect_options(self) -> dict[str, Any]:
        """Keyword arguments of ``nats.connect`` for these settings."""
        options: dict[str, Any] = {"servers": list(self.servers)}
        if self.user is not None:
            options["user"], options["password"] = self.user, self.password
        if self.token is not None:
            options["token"] = self.token
        if self.nkeys_seed is not None:
            options["nkeys_seed"] = str(self.nkeys_seed)
        if self.credentials is not None:
            options["user_credentials"] = str(self.credentials)
        context = self.tls_context()
        if context is not None:
            options["tls"] = context
        return {**options, **self.extra}


def _url_credentials(url: str) -> bool:
    parts = urlsplit(url if "://" in url else f"nats://{url}")
    return bool(parts.username)
