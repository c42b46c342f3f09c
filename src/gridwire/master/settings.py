"""How an outstation is to be looked after: its address, connection, and the tasks the master
does by itself (pydantic v2 models; the operations service uses them as its parameter models).

``OutstationSettings.tasks`` is the partial choice a caller gave; the tasks in force are
worked out by :func:`effective_tasks` from that choice, ``manual`` and whether the master may
command (the two writing tasks are off, and refused by name, without control).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gridwire.dnp3.transport import DEFAULT_MAX_FRAGMENT, MAX_PAYLOAD
from gridwire.master.limits import (
    LONGEST_RECONNECT,
    MAX_REQUEST_FRAGMENT,
    MIN_SCAN_INTERVAL,
    NAME_LENGTH,
)
from gridwire.master.tasks.catalogue import TASK_NAMES, WRITING_TASKS
from gridwire.master.tasks.settings import TaskSettings
from gridwire.net.binding import HOST_LENGTH
from gridwire.net.tls_files import PATH_LENGTH, ClientTls

__all__ = [
    "HOST_LENGTH",
    "MAX_REQUEST_FRAGMENT",
    "MIN_SCAN_INTERVAL",
    "NAME_LENGTH",
    "PATH_LENGTH",
    "TASK_NAMES",
    "WRITING_TASKS",
    "OutstationSettings",
    "TaskSettings",
    "TlsSettings",
    "effective_tasks",
]


class TlsSettings(ClientTls):
    """TLS to the outstation: files on the machine the service runs on, and the name the
    outstation's certificate carries."""

    # The files, their limits and their loader are every side's: gridwire.net.tls_files.


class OutstationSettings(BaseModel):
    """An outstation as given to ``add``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_LENGTH)
    # host and port (and tls) are the short form of a TCP or TLS channel of the outstation's
    # own; an outstation on a named channel (channel) gives none of them (DESIGN D184).
    host: str = Field(default="", max_length=HOST_LENGTH)
    port: int = Field(default=0, ge=0, le=65535)
    channel: str | None = Field(
        default=None,
        min_length=1,
        max_length=NAME_LENGTH,
        description="The channel (add_channel) the outstation is on, beside its link address; "
        "instead of host and port",
    )
    tasks: dict[str, Any] = Field(default_factory=dict)
    manual: bool = False
    confirm: bool | None = None
    # Like a schedule (MIN_SCAN_INTERVAL), a reconnection is not tried more often than ten
    # times a second: 1e-9 against a refused port would spin as fast as connections fail.
    reconnect: float | None = Field(
        default=5.0, ge=MIN_SCAN_INTERVAL, le=LONGEST_RECONNECT, allow_inf_nan=False
    )
    read_retries: int = Field(default=0, ge=0, le=100)
    tls: TlsSettings | None = None
    outstation_address: int = Field(default=1024, ge=0, le=0xFFEF)
    master_address: int = Field(default=1, ge=0, le=0xFFEF)
    response_timeout: float = Field(default=5.0, gt=0)
    profile: str | None = Field(default=None, max_length=PATH_LENGTH)
    # The Device Profile document (XML file on the service's machine) that der.document and
    # der.compare use for this outstation; the service's --device-profile when left out.
    device_profile: str | None = Field(default=None, min_length=1, max_length=PATH_LENGTH)
    integrity_interval: float | None = Field(
        default=None, ge=MIN_SCAN_INTERVAL, allow_inf_nan=False
    )
    event_interval: float | None = Field(default=None, ge=MIN_SCAN_INTERVAL, allow_inf_nan=False)
    output_interval: float | None = Field(default=None, ge=MIN_SCAN_INTERVAL, allow_inf_nan=False)
    # Our addition: the procedure the write_time task uses on NEED_TIME.
    time_procedure: Literal["lan", "non_lan"] = "lan"
    # Our addition: the largest request fragment the outstation takes (its receive buffer:
    # 2048 octets unless its device profile says otherwise; at least one transport
    # segment's 249). A request that would be larger is refused before anything is built
    # or sent, since the outstation would throw it away.
    max_request_fragment: int = Field(
        default=DEFAULT_MAX_FRAGMENT, ge=MAX_PAYLOAD, le=MAX_REQUEST_FRAGMENT
    )

    @field_validator("name")
    @classmethod
    def _printable_name(cls, value: str) -> str:
        # The name is written into the log, events and reports: a line break or an escape in
        # it would forge a line of the command log or redraw a terminal.
        if not value.isprintable():
            raise ValueError("a name is printable text: no line breaks, tabs or other controls")
        return value

    @field_validator("tasks")
    @classmethod
    def _task_names(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = [name for name in value if name not in TASK_NAMES]
        if unknown:
            more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
            raise ValueError(f"unknown task {', '.join(n[:40] for n in unknown[:3])}{more}")
        return value

    @model_validator(mode="after")
    def _where(self) -> OutstationSettings:
        if self.channel is not None:
            if self.host or self.port or self.tls is not None:
                raise ValueError(
                    "give either channel or host and port (tls belongs to the channel)"
                )
        elif not self.host or not self.port:
            raise ValueError("give host and port, or channel")
        return self

    @property
    def confirms(self) -> bool:
        """Whether the master confirms what the outstation asks it to (off under ``manual``
        unless ``confirm`` says otherwise)."""
        return self.confirm if self.confirm is not None else not self.manual

    def effective_tasks(self, allow_control: bool) -> TaskSettings:
        return effective_tasks(self, allow_control)

    def schedules(self) -> dict[str, float]:
        """The periodic scans these settings ask for: scan kind -> interval in seconds."""
        chosen = (
            ("integrity", self.integrity_interval),
            ("events", self.event_interval),
            ("outputs", self.output_interval),
        )
        return {kind: interval for kind, interval in chosen if interval is not None}


def effective_tasks(settings: OutstationSettings, allow_control: bool) -> TaskSettings:
    """The tasks in force: the defaults (or all off under ``manual``) with the given choices
    laid over them."""
    base = TaskSettings.none() if settings.manual else TaskSettings.defaults(allow_control)
    return base.merged(settings.tasks, allow_control)
