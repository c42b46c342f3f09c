"""The settings of ``gridwire console`` and ``gridwire serve``, as a configuration file holds
them (JSON; ``gridwire config`` prints a complete one) and as flags override them.

    {
      "allow_control": false,
      "outstations": [{"name": "feeder", "host": "127.0.0.1", "port": 20000, ...}],
      "connect_wait": null, "tables": null, "device_profile": null, "capture": null,
      "state_dir": null, "trace_budget": 268435456,
      "log_file": null, "log_level": "INFO",
      "console": {"bind": "127.0.0.1:8815", "token": null, "new_token": true},
      "serve": {"bind": "127.0.0.1:8816"},
      "evaluate": {"checks": null, "allow_deviations": false, "settle": 5.0, "curves": null,
                   "report": null, "html": null, "junit": null}
    }

Each outstation is the ``add`` operation's parameters (the master's OutstationSettings).
``console.bind`` and ``serve.bind`` are read by the rule of every bind
(:mod:`gridwire.net.binding`).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from gridwire.channels.settings import ChannelSettings
from gridwire.errors import ConfigError
from gridwire.master.settings import OutstationSettings
from gridwire.master.trace_budget import DEFAULT_TRACE_BUDGET
from gridwire.net.binding import parse_bind

CONSOLE_PORT = 8815
SERVE_PORT = 8816
CONSOLE_BIND = f"127.0.0.1:{CONSOLE_PORT}"
SERVE_BIND = f"127.0.0.1:{SERVE_PORT}"
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
_SIZE = re.compile(r"\s*(\d+)\s*(|k|kib|m|mib|g|gib)\s*", re.IGNORECASE)
_UNITS = {"": 0, "k": 10, "kib": 10, "m": 20, "mib": 20, "g": 30, "gib": 30}


def parse_size(text: str) -> int:
    """Bytes from ``123``, ``64KiB``, ``256M``, ``1GiB`` (binary units, any case);
    ValueError for anything else."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a size: bytes, or a number with KiB, MiB or GiB")
    return int(match.group(1)) << _UNITS[match.group(2).lower()]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConsoleSettings(_Section):
    """The HTTP service. ``token`` fixes the token; without one, ``new_token`` makes one at
    start (printed with the address to open); with neither the API needs no token, which a
    bind beyond loopback refuses."""

    bind: str = CONSOLE_BIND
    token: str | None = Field(default=None, min_length=1)
    new_token: bool = True

    def address(self) -> tuple[str, int]:
        """The host and port ``bind`` names (:mod:`gridwire.net.binding`'s rule)."""
        return parse_bind(self.bind, CONSOLE_PORT, "console.bind")


class LineSettings(_Section):
    """The line service: on this machine only."""

    bind: str = SERVE_BIND

    def address(self) -> tuple[str, int]:
        """The host and port ``bind`` names (:mod:`gridwire.net.binding`'s rule)."""
        return parse_bind(self.bind, SERVE_PORT, "serve.bind")


class EvaluateSettings(_Section):
    """``gridwire evaluate``: the run's parameters (as the ``evaluate`` operation takes them)
    and the files its report is written to; its flags override them."""

    checks: list[str] | None = Field(
        default=None, description="Check ids or set names; all when null"
    )
    allow_deviations: bool = False
    settle: float = Field(default=5.0, gt=0, allow_inf_nan=False)
    curves: int | None = Field(default=None, ge=1)
    report: Path | None = Field(default=None, description="The report as JSON")
    html: Path | None = Field(default=None, description="The report as a printable page")
    junit: Path | None = Field(default=None, description="The report as JUnit XML")


class ServiceConfig(_Section):
    """Every setting of the service."""

    allow_control: bool = False
    outstations: list[OutstationSettings] = Field(default_factory=list)
    channels: list[ChannelSettings] = Field(
        default_factory=list,
        description="Channels (add_channel's) outstations name in their channel setting",
    )
    connect_wait: float | None = Field(
        default=None, ge=0, description="Seconds to keep trying to connect at start"
    )
    tables: Path | None = Field(default=None, description="The IEEE 1815.2 point map file")
    device_profile: Path | None = Field(default=None, description="A Device Profile document")
    capture: Path | None = Field(default=None, description="pcap file of every frame")
    state_dir: Path | None = Field(
        default=None,
        description="Where evaluations keep their restore journals (else the user's state "
        "directory)",
    )
    trace_budget: int = Field(
        default=DEFAULT_TRACE_BUDGET,
        ge=0,
        description="Bytes every outstation's trace keeps together, oldest frames dropped "
        "first (a number of bytes, or text such as 256MiB)",
    )
    log_file: Path | None = None
    log_level: LogLevel = "INFO"
    console: ConsoleSettings = Field(default_factory=ConsoleSettings)
    serve: LineSettings = Field(default_factory=LineSettings)
    evaluate: EvaluateSettings = Field(default_factory=EvaluateSettings)

    @field_validator("trace_budget", mode="before")
    @classmethod
    def _size(cls, value: object) -> object:
        return parse_size(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _unique_names(self) -> ServiceConfig:
        counted = Counter(o.name for o in self.outstations)
        twice = sorted(n for n, times in counted.items() if times > 1)
        if twice:
            raise ValueError(f"outstation {', '.join(twice)} is given twice")
        channels = [c.name for c in self.channels]
        twice = sorted({n for n in channels if channels.count(n) > 1})
        if twice:
            raise ValueError(f"channel {', '.join(twice)} is given twice")
        return self


def load_config(path: Path) -> ServiceConfig:
    """The configuration file at ``path``; ConfigError naming the file and what is wrong."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"config file {path}: {exc.strerror or exc}") from None
    try:
        config = ServiceConfig.model_validate_json(data, strict=True)
        config.console.address()
        config.serve.address()
    except ValidationError as exc:
        raise ConfigError(f"config file {path}: {first_problem(exc)}") from None
    except ConfigError as exc:
        raise ConfigError(f"config file {path}: {exc}") from None
    return config


def first_problem(exc: ValidationError) -> str:
    """A validation error's first problem as ``where: what``."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    if err["type"] == "json_invalid":
        return f"not JSON ({err['msg']})"
    return f"{where}: {err['msg']}" if where else str(err["msg"])
