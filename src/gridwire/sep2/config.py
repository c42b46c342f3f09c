"""Settings of the IEEE 2030.5 client: ``server.*``, ``tls.*`` and ``api.*``.

A configuration file (TOML, or JSON when its name ends in ``.json``) may hold every setting;
command-line flags override it key by key. Relative paths in a file are taken from the file's
own folder. Unknown keys and values of the wrong kind are refused with the key named.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gridwire.errors import ConfigError
from gridwire.net.binding import parse_bind
from gridwire.net.tls_files import ClientTls
from gridwire.sep2.limits import MAX_PAGE_SIZE

API_PORT = 8830
"""The management API's port when ``api.bind`` names none."""
BASELINE_CIPHER = "ECDHE-ECDSA-AES128-CCM8"
DEFAULT_DCAP_PATH = "/dcap"
TOKEN_PATTERN = r"^[A-Za-z0-9._~+/-]+=*$"  # RFC 6750 b64token: what a Bearer header carries


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerConfig(_Settings):
    url: str | None = Field(
        default=None,
        description="https://host:port of the head-end, with a path where its resources start "
        "(a head-end behind a proxy: https://host:port/envoy)",
    )
    dcap_path: str = Field(
        default=DEFAULT_DCAP_PATH,
        description="Path of DeviceCapability under the path of url (/dcap under "
        "https://host/envoy is /envoy/dcap); every link from there on is resolved against the "
        "URL it came in, as RFC 3986 says",
    )
    fsa_stale_seconds: float | None = Field(
        default=None,
        gt=0,
        description="Age beyond which an FSA's offset yields to a newer global one; by default "
        "three intervals of the Time poll cadence, never below 3600",
    )
    use_server_time: bool = Field(
        default=True, description="Apply the head-end's offset to scheduling (timebase_enabled)"
    )
    page_size: int = Field(
        default=25, ge=1, le=MAX_PAGE_SIZE, description="Entries asked for per list page"
    )
    timeout_seconds: float = Field(default=10.0, gt=0, description="Limit of one request")
    retry_initial_seconds: float = Field(
        default=1.0, gt=0, description="First wait after a failure"
    )
    retry_max_seconds: float = Field(
        default=60.0, gt=0, description="Longest wait between attempts"
    )

    @field_validator("url")
    @classmethod
    def _https(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - reading it checks it
        except ValueError as exc:
            raise ValueError(f"is not a URL ({exc})") from None
        if parts.scheme != "https" or not parts.hostname:
            raise ValueError("must be an https:// URL with a host (IEEE 2030.5 runs over TLS)")
        if parts.query or parts.fragment or "?" in value or "#" in value:
            raise ValueError("must be https://host:port with a path at most, no query or fragment")
        return value.rstrip("/")

    @field_validator("dcap_path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError("must be a path starting with /")
        return value


class TlsConfig(ClientTls):
    """The files (``ca``: the head-end's CA, ``certificate`` and ``key``: this device's) and
    ``server_name`` as every side's TLS (:mod:`gridwire.net.tls_files`), and what only the
    2030.5 client sets: the suites it offers, the oldest version, whether the name is checked."""

    ciphers: list[str] = Field(
        default_factory=list,
        description=f"TLS 1.2 suites offered after the baseline {BASELINE_CIPHER}",
    )
    minimum_version: Literal["1.2", "1.3"] = Field(default="1.2", description="Oldest TLS version")
    check_hostname: bool = Field(
        default=True, description="Check the head-end's cert names its host"
    )


class ApiConfig(_Settings):
    bind: str | None = Field(
        default=None,
        description=f"Where the management API listens: HOST:PORT, HOST (port {API_PORT}), :PORT "
        "(127.0.0.1) or [IPv6]:PORT, as every gridwire bind",
    )
    token: str | None = Field(
        default=None,
        pattern=TOKEN_PATTERN,
        description="When set, /api/v1/* answer only requests with Authorization: Bearer TOKEN "
        "(or ?token=TOKEN); /docs and /openapi.json stay open. Letters, digits and -._~+/ "
        "(RFC 6750's b64token)",
    )

    def address(self) -> tuple[str, int] | None:
        """The host and port ``bind`` names (:mod:`gridwire.net.binding`'s rule), None unset."""
        return None if self.bind is None else parse_bind(self.bind, API_PORT, "api.bind")


class Sep2Config(_Settings):
    server: ServerConfig = ServerConfig()
    tls: TlsConfig | None = Field(
        default=None, description="Mutual TLS to the head-end: ca, certificate and key together"
    )
    api: ApiConfig = ApiConfig()


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings in ``path`` as nested mappings, with relative paths made absolute."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"config {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"config {path}: not UTF-8 text") from None
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config {path}: expected a table of settings at the top")
    tls = data.get("tls")
    if isinstance(tls, dict):
        for key in ("ca", "certificate", "key"):
            value = tls.get(key)
            if isinstance(value, str) and value and not Path(value).is_absolute():
                tls[key] = str((path.parent / value).resolve())
    return data


def build_config(
    data: Mapping[str, Any] | None = None, overrides: Mapping[str, Any] | None = None
) -> Sep2Config:
    """Settings from a file's ``data`` with dotted-key ``overrides`` (``None`` values ignored)."""
    merged: dict[str, Any] = {
        k: dict(v) if isinstance(v, dict) else v for k, v in (data or {}).items()
    }
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        section, _, key = dotted.partition(".")
        table = merged.setdefault(section, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{section}: expected a table of settings")
        table[key] = value
    try:
        config = Sep2Config.model_validate(merged)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        if first["type"] == "missing":
            raise ConfigError(f"{where} is not set") from None
        raise ConfigError(f"{where}: {first['msg']}") from None
    config.api.address()
    return config
