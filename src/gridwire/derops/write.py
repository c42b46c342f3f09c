"""der.write: settings and controls of a DER by name, in engineering units, in one request.

``points`` maps names or addresses of outputs to values, written in the order given (see
:mod:`gridwire.derops.values` for what each output takes); every value is checked before
anything is sent, so a refusal sends nothing. The controls go in one request by ``mode``
(direct, select then operate, or direct_no_ack), never twice.

With ``verify``, one read of every written output's mirror input follows; each point's
``matches`` says whether its readback is within one step of the multiplier of what was sent
(a binary output: the same state), and ``verified`` is true when every mirrored point
matches, false when one does not (or was not reported), null when no written point has a
mirror. Without ``verify`` both stay null.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Point
from gridwire.derops.operated import Mode, Operated, operated_of
from gridwire.derops.read import read_points
from gridwire.derops.readings import DerReading, Quality, Scalar, units_of
from gridwire.derops.values import Planned, Requested, analog_plan, binary_plan
from gridwire.errors import BadParameter
from gridwire.master import Master
from gridwire.master.command_log import command
from gridwire.master.records import ControlStatus, Exchange

STEP_SLACK = 1e-9  # relative: one multiplier step, less the binary noise of a decimal step


@dataclass(slots=True)
class Readback:
    """What the mirror input of a written output read."""

    address: str
    value: Scalar | None
    raw: Scalar | None
    quality: Quality
    flags: list[str] | None


@dataclass(slots=True)
class WrittenPoint:
    """One output written: what was asked, what was sent, what the outstation said and, with
    verify, what its mirror input reads."""

    address: str
    type: str
    index: int
    units: str | None
    name: str
    requested: Requested
    sent: int | None
    sent_value: bool | int | float
    status: str | None
    echoed: bool
    matches: bool | None
    readback: Readback | None


@dataclass(slots=True)
class DerWriteResult:
    """What ``der.write`` answers (its result as README and OpenAPI describe it), and every
    request made (the readback included)."""

    accepted: bool | None
    verified: bool | None
    points: list[WrittenPoint]
    operated: Operated
    exchanges: list[Exchange]


def plan_write(
    point_map: PointMap, points: Mapping[str, Requested], variation: int | None = None
) -> list[Planned]:
    """Every value checked and made ready, in the order given; RequestError naming the
    first point that cannot be written (nothing is sent)."""
    if isinstance(points, str) or not isinstance(points, Mapping):
        raise BadParameter("points is an object of values keyed by name or address")
    if not points:
        raise BadParameter("der.write needs at least one point in points")
    if variation is not None and variation not in (1, 2, 3, 4):
        raise BadParameter(f"variation {variation!r} is not 1, 2, 3 or 4 (g41)")
    planned: list[Planned] = []
    seen: dict[str, str] = {}
    for name, value in points.items():
        point = point_map.resolve(name, write=True)
        address = str(point.address)
        if address in seen:
            raise BadParameter(f"'{seen[address]}' and '{name}' both name {address}")
        seen[address] = name
        if point.kind.is_binary:
            planned.append(binary_plan(point, value))
        else:
            planned.append(analog_plan(point, value, variation))
    return planned


def _matches(point: Point, sent_value: bool | int | float, read: DerReading) -> bool:
    value = read.value
    if value is None:
        return False
    if isinstance(sent_value, bool) or isinstance(value, bool):
        return value is sent_value
    step = abs(point.multiplier) * (1 + STEP_SLACK)
    return abs(float(value) - float(sent_value)) <= step


def _written(
    item: Planned, status: ControlStatus | None, read: DerReading | None, verify: bool
) -> WrittenPoint:
    point = item.point
    matches: bool | None = None
    readback: Readback | None = None
    if verify and read is not None:
        matches = _matches(point, item.sent_value, read)
        readback = Readback(read.address, read.value, read.raw, read.quality, read.flags)
    return WrittenPoint(
        address=str(point.address),
        type=point.kind.type_name,
        index=point.index,
        units=units_of(point),
        name=point.name,
        requested=item.requested,
        sent=item.sent,
        sent_value=item.sent_value,
        status=None if status is None else status.status,
        echoed=False if status is None else status.echoed,
        matches=matches,
        readback=readback,
    )


async def der_write(
    master: Master,
    outstation: str,
    point_map: PointMap,
    points: Mapping[str, Requested],
    *,
    verify: bool = False,
    mode: Mode = "direct",
    variation: int | None = None,
) -> DerWriteResult:
    """der.write (see the module's notes). Raises NotAllowed from the master when it may not
    command, ConnectionFailed when the outstation is not connected."""
    with command(
        "der.write",
        outstation,
        {"points": dict(points), "verify": verify, "mode": mode, "variation": variation},
    ) as record:
        planned = plan_write(point_map, points, variation)
        result = await master.operate_controls(outstation, [p.control for p in planned], mode)
        exchanges = list(result.exchanges)
        mirrors: dict[int, DerReading] = {}
        if verify:
            pairs = [(n, point_map.mirror(p.point)) for n, p in enumerate(planned)]
            inputs = [(n, m) for n, m in pairs if m is not None]
            if inputs:
                found, reads = await read_points(master, outstation, [m for _, m in inputs])
                exchanges.extend(reads)
                mirrors = {n: read for (n, _), read in zip(inputs, found, strict=True)}
        statuses: list[ControlStatus | None] = list(result.statuses)
        statuses += [None] * (len(planned) - len(statuses))
        written = [
            _written(item, status, mirrors.get(n), verify)
            for n, (item, status) in enumerate(zip(planned, statuses, strict=True))
        ]
        checked = [w.matches for w in written if w.matches is not None]
        verified = None if not checked else all(checked)
        sent = [(w.address, w.requested, w.sent, w.sent_value) for w in written]
        shown = [w.status for w in written]
        record.result = (
            f"sent {sent}: accepted={result.accepted} verified={verified} statuses={shown}"
        )
        return DerWriteResult(result.accepted, verified, written, operated_of(result), exchanges)
