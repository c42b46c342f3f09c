"""Settings of the gateway: ``sep2``'s ``server.*``, ``tls.*`` and ``api.*`` as they are,
plus ``der.*`` (the one DNP3 outstation, with its profile) and ``gateway.*`` (the store, the
seed of the randomization draws, the readings kept).

One file (TOML, or JSON by its suffix) holds them all; relative paths in it are taken from its
folder. Unknown keys and values of the wrong kind are refused with the key named. One gateway
process serves one 2030.5 EndDevice (the certificate's) and one DER; a site with several runs
one process per DER, each with its own certificate, store and API port (DESIGN D204): the
store is named by the EndDevice's LFDI unless ``gateway.store`` names one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gridwire.errors import ConfigError
from gridwire.gateway.store import default_store
from gridwire.sep2.config import Sep2Config, build_config, read_config_file

GATEWAY_API_PORT = 8831
DEFAULT_READINGS = (
    "System meter active power",
    "System meter reactive power",
    "System meter voltage, phase A",
    "System meter frequency",
)


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DerConfig(_Settings):
    host: str = Field(min_length=1, description="The DER outstation's address")
    port: int = Field(ge=1, le=65535, description="Its DNP3 TCP port")
    outstation_address: int = Field(default=1024, ge=0, le=0xFFEF)
    master_address: int = Field(default=1, ge=0, le=0xFFEF)
    tables: str | None = Field(
        default=None,
        description="A point map (gridwire JSON map or IEEE's workbook tables); by default the "
        "installed tables, else the demo map",
    )
    allow_control: bool = Field(
        default=False, description="Command the DER (nothing is commanded without it)"
    )


class GatewaySettings(_Settings):
    store: str | None = Field(
        default=None,
        description="The SQLite store's file; by default gridwire-gateway-<LFDI>.sqlite "
        "beside the configuration file (one per EndDevice)",
    )
    seed: int | None = Field(
        default=None, description="Seed of the randomization draws (by default the LFDI)"
    )
    readings: tuple[str, ...] = Field(
        default=DEFAULT_READINGS, description="DER points read every readings_seconds"
    )
    readings_seconds: float = Field(default=10.0, gt=0)
    post_seconds: float = Field(
        default=300.0,
        gt=0,
        description="How often the DER is reported back (PUT and POST) where the server gives "
        "no postRate (the EndDevice's, the MirrorUsagePoint's)",
    )
    keep_seconds: float = Field(
        default=7 * 86400.0,
        gt=0,
        description="Events over, answered and no longer listed by the head-end, and the "
        "steps sent to the DER, are forgotten after this many seconds",
    )
    der_type: int = Field(
        default=1,
        ge=0,
        le=255,
        description="DERCapability type (DERType: 1 virtual or mixed, "
        "4 PV, 80 storage, 83 PV and storage...)",
    )


class GatewayConfig(_Settings):
    sep2: Sep2Config
    der: DerConfig
    gateway: GatewaySettings = GatewaySettings()
    folder: str = Field(default=".", description="The configuration file's folder")

    def store_path(self, lfdi: str) -> Path:
        """The store's file: as configured, else named by the EndDevice's LFDI."""
        if self.gateway.store is not None:
            return Path(self.gateway.store)
        return default_store(Path(self.folder), lfdi)


def load_gateway_config(path: Path, overrides: dict[str, Any] | None = None) -> GatewayConfig:
    data = read_config_file(path)
    der = data.pop("der", None)
    gateway = dict(data.pop("gateway", None) or {})
    if der is None:
        raise ConfigError(f"config {path}: der is not set (der.host, der.port)")
    if isinstance(der, dict) and isinstance(der.get("tables"), str):
        der["tables"] = str((path.parent / der["tables"]).resolve())
    if isinstance(gateway.get("store"), str):
        gateway["store"] = str((path.parent / gateway["store"]).resolve())
    sep2 = build_config(data, overrides)
    try:
        return GatewayConfig.model_validate(
            {"sep2": sep2, "der": der, "gateway": gateway, "folder": str(path.parent.resolve())}
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{where}: {first['msg']}") from None
