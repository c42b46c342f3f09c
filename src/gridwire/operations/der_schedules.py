"""The schedule operations of IEEE 1815.2 (``der.schedule``, ``der.write_schedule``,
``der.enable_schedule``, ``der.disable_schedule``): one declaration each, calling
:mod:`gridwire.derops` through :class:`gridwire.derops.Der`. As with the curve operations,
the parameters of a command are checked against the point map first (``check``: a value out
of the tables' range is a request error even from a service that may not command), then the
``not_allowed`` gate.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from gridwire.der.schedules import FIELDS
from gridwire.derops.profile import point_map_of
from gridwire.derops.schedule import ScheduleResult, schedule_block_of, selector_control
from gridwire.derops.schedule_ready import ScheduleReadyResult, ready_controls
from gridwire.derops.write_schedule import WriteScheduleResult, plan_schedule
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OutstationParams, declare
from gridwire.operations.der_windows import SelectParams, der, read_window, write_window

Mode = Literal["direct", "select", "direct_no_ack"]
Number = int | float
Value = int | float | str
Pair = Annotated[list[Number], Field(min_length=2, max_length=2)]


class DerScheduleParams(SelectParams):
    number: Number | None = Field(
        default=None, description="Select this stored schedule first (a command)"
    )


class DerWriteScheduleParams(OutstationParams):
    number: Number = Field(description="The stored schedule, from 1")
    type: Value = Field(description="Schedule type: code or the tables' name for it")
    points: list[Pair] = Field(
        description="[time offset, value] pairs in engineering units, at most the window's size"
    )
    identity: Number | None = Field(default=None, description="Identity (left as is if absent)")
    priority: Number | None = Field(default=None, description="Priority (lower wins)")
    start_date: Number | None = Field(default=None, description="Days since 1970-01-01 UTC")
    start_time: Number | None = Field(default=None, description="Milliseconds into that day")
    repeat_interval: Number | None = Field(default=None, description="0: not repeated")
    repeat_units: Value | None = Field(default=None, description="Code or the tables' name")
    mode: Mode = "direct"

    def values(self) -> dict[str, Value | None]:
        return {n: getattr(self, n) for n in FIELDS if getattr(self, n, None) is not None}


class DerScheduleReadyParams(OutstationParams):
    number: Number = Field(description="The stored schedule, from 1")
    mode: Mode = "direct"


def _check_write(c: Context, p: DerWriteScheduleParams) -> None:
    plan_schedule(point_map_of(c.master, p.outstation), p.number, p.values(), p.points)


def _check_ready(c: Context, p: DerScheduleReadyParams) -> None:
    ready_controls(point_map_of(c.master, p.outstation), p.number, True)


def _ready(on: bool) -> Operation[Any]:
    verb = "enable" if on else "disable"
    return declare(
        f"der.{verb}_schedule",
        params=DerScheduleReadyParams,
        result=ScheduleReadyResult,
        handler=lambda c, p: der(c, p.outstation).schedule_ready(p.number, on, p.mode),
        commands=True,
        check=_check_ready,
        summary=f"Select a stored schedule, then set it {'ready' if on else 'not ready'}",
        description="The ready output only when the selection was accepted (stopped_at "
        "names the step that was not); then the ready input, the schedule's status and the "
        "running index are read.",
    )


DER_SCHEDULE_OPERATIONS: list[Operation[Any]] = [
    read_window(
        "schedule",
        params=DerScheduleParams,
        result=ScheduleResult,
        handler=lambda c, p: der(c, p.outstation).schedule(p.number, p.mode),
        block_of=schedule_block_of,
        selector=selector_control,
        description="Fields and points in engineering units; type, repeat units, status and "
        "validation by code and by name; start as ISO 8601 UTC; ready and the running index.",
    ),
    write_window(
        "schedule",
        params=DerWriteScheduleParams,
        result=WriteScheduleResult,
        handler=lambda c, p: der(c, p.outstation).write_schedule(
            p.number, p.points, p.mode, **p.values()
        ),
        check=_check_write,
        more=" Out-of-range values are refused before anything is sent.",
    ),
    _ready(True),
    _ready(False),
]
