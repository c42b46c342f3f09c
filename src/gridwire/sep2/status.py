"""The status report's shapes (``GET /api/v1/status``), declared once for the data and for
the OpenAPI document. Built from the client's own state, so they carry no validation rules."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ConnectionStateName = Literal["starting", "connected", "failed", "stopped"]


class _Report(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)


class ScopeStatus(_Report):
    offset_seconds: float | None = Field(description="Head-end time minus local time")
    quality: int | None = Field(
        description="The head-end's quality claim (3..7); null when none is held or it was left out"
    )
    href: str | None = Field(description="Path of the Time resource")
    age_seconds: float | None = Field(description="Age of the observation (monotonic clock)")


class FsaStatus(ScopeStatus):
    fsa: str = Field(description="Path of the FunctionSetAssignments")
    description: str | None = Field(description="The FSA's description, when it has one")
    stale: bool = Field(
        description="Older than fsa_stale_seconds while the global observation is newer, so "
        "its programs are scheduled on the global offset"
    )


class TimebaseStatus(_Report):
    global_: ScopeStatus | None = Field(
        alias="global", description="The DeviceCapability Time offset; null before one"
    )
    per_fsa: list[FsaStatus] = Field(description="One entry per function set assignment")
    fsa_stale_seconds: float = Field(description="The staleness threshold in seconds")


class ConnectionStatus(_Report):
    state: ConnectionStateName = Field(description="Where the client stands with the head-end")
    server: str | None = Field(description="URL of the head-end")
    error: str | None = Field(description="Why the last attempt failed; null when it did not")
    warnings: list[str] = Field(
        description="What is wrong now without failing the connection, each naming the URL "
        "requested: a resource discovery could not read (its link answered an error status), "
        "a Time resource that failed or left out fields its schema requires; empty when none"
    )
    since_seconds: float = Field(description="Seconds in this state (monotonic clock)")
    last_success_age_seconds: float | None = Field(
        description="Seconds since the head-end last answered a poll usefully"
    )


class DeviceStatus(_Report):
    lfdi: str = Field(description="Long-form device identifier, 40 hex digits")
    sfdi: int = Field(description="Short-form device identifier with its check digit")
    end_device: str | None = Field(description="Path of this device's EndDevice, once found")


class PollingStatus(_Report):
    dcap_poll_seconds: float | None = Field(description="DeviceCapability poll interval")
    time_poll_seconds: float | None = Field(description="Longest Time poll interval in use")
    rediscoveries: int = Field(description="Structure walks after the first discovery")


class ClientStatus(_Report):
    connection: ConnectionStatus
    device: DeviceStatus
    polling: PollingStatus
    timebase_enabled: bool = Field(description="Whether scheduling applies the offset")
    timebase: TimebaseStatus
