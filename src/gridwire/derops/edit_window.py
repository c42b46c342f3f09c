"""The edit window of a stored curve or schedule: what der.curve and der.schedule, and
der.write_curve and der.write_schedule, do alike (DESIGN D229).

The curve block and the schedule block are each a window onto one stored item at a time: a
selector output picks it, its fields and points follow. Reading one (:func:`select_then_read`)
writes the selector first when a number is given (a command of its own), then reads whatever
the window shows. Writing one (:func:`write_window`) is three operates, each only when the one
before was accepted: the selector, the fields, the points (a step with nothing to send is
skipped). ``stopped_at`` names the step that was not accepted, or not answered; in mode
direct_no_ack no step is acknowledged, so after the selector and after the fields the block's
readbacks are read, and the next step is sent only when they show what was written. The item
is always read back; ``matches`` says whether it is the one written. Every request is listed
in ``exchanges``, in the order sent.

What is each block's own (its checks, its readbacks, what "the same" means) comes in an
:class:`EditWindow`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from gridwire.der.pointmap import PointMap
from gridwire.derops.operated import Mode
from gridwire.derops.ranges import PointReader
from gridwire.master import Master
from gridwire.master.command_log import command
from gridwire.master.controls import Control
from gridwire.master.records import Exchange, OperateResult

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Step = Literal["selector", "fields", "points"]
STEPS: tuple[Step, ...] = ("selector", "fields", "points")
R = TypeVar("R")
D = TypeVar("D", bound="DataclassInstance")
Read = Callable[[PointReader, str, PointMap], Awaitable[tuple[R, list[Exchange]]]]


@dataclass(frozen=True, slots=True)
class EditWindow(Generic[R]):
    """One write through a block's window, checked: the controls of each step, how to read
    the item back and whether a reading is what was written; ``shows`` reads the block's
    readbacks after a step in mode direct_no_ack and says whether they show it; ``what``
    names the item in the command's record ("curve 4 (2 points)")."""

    steps: Mapping[Step, Sequence[Control]]
    read: Read[R]
    matches: Callable[[R], bool]
    shows: Callable[[PointReader, str, Step], Awaitable[tuple[bool, list[Exchange]]]]
    what: str


@dataclass(slots=True)
class Written(Generic[R]):
    """What a write through the window came to, and the item read back."""

    accepted: bool | None
    matches: bool
    stopped_at: Step | None
    steps: list[OperateResult]
    reading: R
    exchanges: list[Exchange]


def _accepted(steps: list[OperateResult], stopped: Step | None) -> bool | None:
    if any(step.accepted is False for step in steps):
        return False
    if stopped is not None or any(step.accepted is None for step in steps):
        return None
    return True


async def _operate(
    master: Master, outstation: str, window: EditWindow[R], mode: Mode, exchanges: list[Exchange]
) -> tuple[list[OperateResult], Step | None]:
    """The three steps, each only when the one before took effect: the Operate results and
    the step that did not (None when none)."""
    steps: list[OperateResult] = []
    for step in STEPS:
        controls = list(window.steps[step])
        if not controls:
            continue
        result = await master.operate_controls(outstation, controls, mode)
        steps.append(result)
        exchanges += result.exchanges
        if result.accepted is False or (result.accepted is None and mode != "direct_no_ack"):
            return steps, step
        if mode == "direct_no_ack" and step != "points":
            shown, reads = await window.shows(master, outstation, step)
            exchanges += reads
            if not shown:
                return steps, step
    return steps, None


async def write_window(
    master: Master,
    outstation: str,
    point_map: PointMap,
    operation: str,
    asked: Mapping[str, object],
    plan: Callable[[], EditWindow[R]],
    mode: Mode,
) -> Written[R]:
    """``operation`` (one command record of ``asked``): ``plan`` checks every value before
    anything is sent (its RequestError is the command's), then the steps and the read back
    (see the module's notes)."""
    with command(operation, outstation, asked) as record:
        window = plan()
        exchanges: list[Exchange] = []
        steps, stopped = await _operate(master, outstation, window, mode, exchanges)
        reading, reads = await window.read(master, outstation, point_map)
        exchanges += reads
        matches = window.matches(reading)
        accepted = _accepted(steps, stopped)
        record.result = f"{window.what}: accepted={accepted} stopped_at={stopped} matches={matches}"
        return Written(accepted, matches, stopped, steps, reading, exchanges)


async def select_then_read(
    master: Master,
    outstation: str,
    point_map: PointMap,
    operation: str,
    number: object,
    selector: Callable[[PointMap, object], Control],
    read: Read[D],
    mode: Mode,
) -> dict[str, Any]:
    """The item the window shows, selected first when ``number`` is given (``selector`` makes
    its control, checked before the command's record opens): the reading's fields, the
    selector's Operate result as ``selected`` (None when not given) and every request made
    as ``exchanges``."""
    selected: OperateResult | None = None
    exchanges: list[Exchange] = []
    if number is not None:
        control = selector(point_map, number)
        with command(operation, outstation, {"number": number, "mode": mode}) as record:
            selected = await master.operate_controls(outstation, [control], mode)
            record.result = f"select {control.value}: accepted={selected.accepted}"
        exchanges.extend(selected.exchanges)
    reading, reads = await read(master, outstation, point_map)
    exchanges.extend(reads)
    shown: dict[str, Any] = {f.name: getattr(reading, f.name) for f in fields(reading)}
    return {**shown, "selected": selected, "exchanges": exchanges}
