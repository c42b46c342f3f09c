"""der.enable_schedule and der.disable_schedule: select a stored schedule, then latch the
output that sets the selected schedule ready (BO42 in AN2018-001) on or off, then read its
mirror (BI108), the selected schedule's status and the index of the schedule running.

The ready output is sent only when the selection was accepted (``stopped_at`` is
``selector`` otherwise); both are controls, each sent once. A profile whose schedule block has
no ready output cannot enable a schedule: a request error before anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gridwire.der.pointmap import PointMap
from gridwire.derops.errors import NotConfigured
from gridwire.derops.operated import Mode
from gridwire.derops.schedule import read_heads, schedule_block_of, selector_control
from gridwire.master import Master
from gridwire.master.command_log import command
from gridwire.master.controls import Control
from gridwire.master.records import Exchange, OperateResult


@dataclass(slots=True)
class ScheduleReadyResult:
    """``ready`` is the ready input's state after (null when not served or not reported);
    ``status`` the selected schedule's status code and ``running`` the running index."""

    number: int
    accepted: bool | None
    stopped_at: Literal["selector", "ready"] | None
    ready: bool | None
    status: int | float | None
    running: int | float | None
    steps: list[OperateResult]
    exchanges: list[Exchange]


def ready_controls(point_map: PointMap, number: object, on: bool) -> tuple[Control, Control]:
    """The selector's control and the ready output's; RequestError when the tables have no
    ready output or the number is out of the selector's range."""
    block = schedule_block_of(point_map)
    if block.ready is None:
        raise NotConfigured(
            f"the profile ({point_map.title}) has no output that sets a schedule ready"
        )
    return selector_control(point_map, number), Control("bo", block.ready, on)


async def der_schedule_ready(
    master: Master,
    outstation: str,
    point_map: PointMap,
    number: object,
    on: bool,
    mode: Mode = "direct",
) -> ScheduleReadyResult:
    """Select schedule ``number`` and set it ready (``on``) or not (see the module's notes)."""
    name = "der.enable_schedule" if on else "der.disable_schedule"
    with command(name, outstation, {"number": number, "mode": mode}) as record:
        select, ready = ready_controls(point_map, number, on)
        steps: list[OperateResult] = []
        exchanges: list[Exchange] = []
        stopped: Literal["selector", "ready"] | None = None
        for step, control in (("selector", select), ("ready", ready)):
            result = await master.operate_controls(outstation, [control], mode)
            steps.append(result)
            exchanges += result.exchanges
            if result.accepted is False or (result.accepted is None and mode != "direct_no_ack"):
                stopped = "selector" if step == "selector" else "ready"
                break
        heads, reads = await read_heads(master, outstation, point_map)
        exchanges += reads
        flag = heads.get("ready")
        accepted = (
            False
            if any(s.accepted is False for s in steps)
            else (None if stopped or any(s.accepted is None for s in steps) else True)
        )
        status, running = heads.get("status"), heads.get("running")
        record.result = (
            f"schedule {select.value} ready={on}: accepted={accepted} stopped_at={stopped} "
            f"ready now={flag}"
        )
        return ScheduleReadyResult(
            number=int(select.value),
            accepted=accepted,
            stopped_at=stopped,
            ready=flag if isinstance(flag, bool) else None,
            status=None if isinstance(status, bool) else status,
            running=None if isinstance(running, bool) else running,
            steps=steps,
            exchanges=exchanges,
        )
