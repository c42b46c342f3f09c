"""The ``operate`` operation: binary output (CROB, g12v1) and analog output (g41) controls
in one request, by direct operate, select-before-operate or direct operate without
acknowledgment.

``points`` is ``{"bo": {index: value}, "ao": {index: value}}`` (indexes as decimal text, as
JSON object keys are, or as integers):

- a binary output takes True or False (LATCH_ON / LATCH_OFF) or an operation by name
  (``PULSE_ON``, ``PULSE_OFF``, ``LATCH_ON``, ``LATCH_OFF``, ``CLOSE_PULSE_ON``,
  ``TRIP_PULSE_ON``, ``NUL``, any case), sent as one operation of 100 ms on and 100 ms off;
- an analog output takes a number. Without ``variation``, an integer goes as g41v1 (32-bit)
  and a float as g41v3 (single precision); ``variation`` 1-4 sends every analog output as
  that variation (1: 32-bit, 2: 16-bit integer, 3: single, 4: double precision), a float with
  a whole value being accepted for the integer variations. For a point the profile scales
  (multiplier other than 1 or offset other than 0), an integer is the transmitted value and
  a float the engineering value, converted to the nearest transmitted whole number.

Everything is checked before anything is sent; a problem is a RequestError that names the
point. The request is built once and never sent again, even when no answer comes (a
timeout): select then operate sends two requests with identical objects, the operate only
when every control of the select was accepted.

:func:`operate_controls` takes the controls as a list instead, each sent as it is (a number
as the number to transmit, no profile scaling it) and in the order given: one object header
per run of controls of the same group and variation (the DER procedures write settings in the
order a caller names them this way).

Statuses come in the order the controls travel (binary outputs first, then the analog
outputs grouped by variation, in the order given). A control's ``value`` is what was sent:
the operation's name for a binary output, the number transmitted for an analog one.
``echoed`` says whether the response carried the control back exactly as sent (index,
variation, control code, count and times, or value); ``status`` is the status the outstation
gave it, None when it gave none. ``accepted``: True when every control came back SUCCESS,
False when the outstation answered and one did not (or it refused the whole request), None
when it never said (no acknowledgment asked, or no answer).
"""

from __future__ import annotations

import math
import struct
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Final, Literal, Protocol

from gridwire.dnp3 import requests
from gridwire.dnp3.app.fragments import parse_request
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.controls import OPERATIONS, CommandStatus, crob
from gridwire.dnp3.objects.records import AnalogCommand, Crob, DnpObject
from gridwire.errors import BadParameter
from gridwire.master.records import ControlStatus, Exchange, OperateResult
from gridwire.master.session_protocol import ExchangeResult, SessionLike
from gridwire.master.timesync import answered, body_of

Mode = Literal["direct", "select", "direct_no_ack"]
MODES: Final = ("direct", "select", "direct_no_ack")
CROB_GROUP: Final = 12
ANALOG_GROUP: Final = 41
SUCCESS: Final = CommandStatus.SUCCESS.name

_INT32: Final = (-(2**31), 2**31 - 1)
_INT16: Final = (-(2**15), 2**15 - 1)
_FLOAT32_MAX: Final = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
_MAX_INDEX: Final = 0xFFFF


class ScaledPoint(Protocol):
    """What a profile's point says about scaling (gridwire.der's Point fits)."""

    @property
    def multiplier(self) -> float: ...

    @property
    def offset(self) -> float: ...

    def to_raw(self, engineering: float) -> int: ...


class ControlProfile(Protocol):
    """The profile hook of ``operate`` (gridwire.der's PointMap fits): names, and the
    scaling of analog outputs. ``kind`` is the point kind of the tables (``BO``, ``AO``)."""

    def name_of(self, type_name: str, index: int) -> str | None: ...

    def get(self, kind: str, index: int) -> ScaledPoint | None: ...


def _index(point_type: str, key: object) -> int:
    if isinstance(key, int) and not isinstance(key, bool):
        index = key
    elif isinstance(key, str) and key.strip().isdigit():
        index = int(key)
    else:
        raise BadParameter(f"{point_type} index {key!r} is not a whole number")
    if not 0 <= index <= _MAX_INDEX:
        raise BadParameter(f"{point_type} index {index} is outside 0..{_MAX_INDEX}")
    return index


def _operation(index: int, value: object) -> str:
    if isinstance(value, bool):
        return "LATCH_ON" if value else "LATCH_OFF"
    if isinstance(value, str) and value.strip().upper() in OPERATIONS:
        return value.strip().upper()
    raise BadParameter(
        f"bo {index}: {value!r} is not true, false or an operation ({', '.join(OPERATIONS)})"
    )


def _scaled(profile: ControlProfile | None, index: int) -> ScaledPoint | None:
    if profile is None:
        return None
    point = profile.get("AO", index)
    if point is None or (point.multiplier == 1 and point.offset == 0):
        return None
    return point


def _analog(
    index: int, value: object, variation: int | None, point: ScaledPoint | None
) -> tuple[int, int | float]:
    """The variation and the number to transmit for one analog output."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadParameter(f"ao {index}: {value!r} is not a number")
    if not math.isfinite(value):
        raise BadParameter(f"ao {index}: {value!r} is not a finite number")
    number: int | float = value
    if point is not None and isinstance(value, float) and variation not in (3, 4):
        # A float is the engineering value: an integer variation carries it scaled to the
        # transmitted whole number, a float variation as it is (DESIGN D81).
        number = point.to_raw(value)
    chosen = variation or (1 if isinstance(number, int) else 3)
    if chosen in (1, 2):
        if isinstance(number, float):
            if not number.is_integer():
                raise BadParameter(
                    f"ao {index}: {value!r} is not a whole number; g41v{chosen} carries "
                    "integers (variation 3 or 4 carries fractions)"
                )
            number = int(number)
        low, high = _INT32 if chosen == 1 else _INT16
        if not low <= number <= high:
            bits = 32 if chosen == 1 else 16
            raise BadParameter(f"ao {index}: {number} does not fit g41v{chosen} ({bits}-bit)")
        return chosen, number
    if chosen == 3 and abs(number) > _FLOAT32_MAX:
        raise BadParameter(f"ao {index}: {number} does not fit g41v3 (single precision)")
    return chosen, float(number)


@dataclass(frozen=True, slots=True)
class Control:
    """One control of :func:`operate_controls`, sent as it is: a binary output (``type``
    ``bo``) takes True/False (LATCH_ON/LATCH_OFF) or an operation by name; an analog output
    (``ao``) takes the number to transmit, in ``variation`` 1-4 (None: g41v1 for an int,
    g41v3 for a float). No profile scales it."""

    type: Literal["bo", "ao"]
    index: int
    value: bool | str | int | float
    variation: int | None = None


# A control as it travels: group, variation, index, and the CROB or the number.
_Item = tuple[int, int, int, Crob | int | float]


def _checked_variation(variation: int | None) -> None:
    if variation is not None and variation not in (1, 2, 3, 4):
        raise BadParameter(f"variation {variation!r} is not 1, 2, 3 or 4 (g41)")


def _item(control: Control) -> _Item:
    """A control checked and made ready to travel; RequestError naming the point."""
    if control.type not in ("bo", "ao"):
        raise BadParameter(f"a control is for a bo or an ao, not {control.type!r}")
    index = _index(control.type, control.index)
    if control.type == "bo":
        return CROB_GROUP, 1, index, crob(_operation(index, control.value))
    _checked_variation(control.variation)
    chosen, number = _analog(index, control.value, control.variation, None)
    return ANALOG_GROUP, chosen, index, number


def _points(points: object, variation: int | None, profile: ControlProfile | None) -> list[_Item]:
    """The controls of ``operate``'s ``points``, validated, in wire order: the binary outputs,
    then the analog outputs grouped by variation in order of first appearance."""
    if not isinstance(points, Mapping):
        raise BadParameter("points must be an object with keys bo and ao")
    unknown = sorted(str(k) for k in points if k not in ("bo", "ao"))
    if unknown:
        raise BadParameter(f"points: unknown type {', '.join(unknown)} (operate takes bo, ao)")
    _checked_variation(variation)
    crobs: list[_Item] = []
    analogs: list[_Item] = []
    for point_type in ("bo", "ao"):
        given = points.get(point_type) or {}
        if not isinstance(given, Mapping):
            raise BadParameter(f"points.{point_type} must be an object of values by index")
        for key, value in given.items():
            index = _index(point_type, key)
            if point_type == "bo":
                crobs.append((CROB_GROUP, 1, index, crob(_operation(index, value))))
            else:
                chosen, number = _analog(index, value, variation, _scaled(profile, index))
                analogs.append((ANALOG_GROUP, chosen, index, number))
    if not crobs and not analogs:
        raise BadParameter("operate needs at least one control in points.bo or points.ao")
    order = list(dict.fromkeys(item[1] for item in analogs))
    return crobs + sorted(analogs, key=lambda item: order.index(item[1]))


def _body(items: list[_Item]) -> bytes:
    """The object headers and data of controls in the order given: one header per run of
    controls of the same group and variation."""
    body = b""
    try:
        for (group, variation), run in groupby(items, key=lambda item: (item[0], item[1])):
            controls = [(index, value) for _, _, index, value in run]
            if group == CROB_GROUP:
                crobs = [(index, value) for index, value in controls if isinstance(value, Crob)]
                fragment = requests.command(0, FunctionCode.DIRECT_OPERATE, crobs=crobs)
            else:
                analogs = [(i, v) for i, v in controls if isinstance(v, int | float)]
                fragment = requests.command(
                    0, FunctionCode.DIRECT_OPERATE, analogs=analogs, variation=variation
                )
            body += body_of(fragment)
    except EncodeError as exc:
        raise BadParameter(f"operate: {exc}") from None
    return body


def build_body(
    points: object, variation: int | None = None, profile: ControlProfile | None = None
) -> bytes:
    """The object headers and data of the controls ``points`` names (validated)."""
    return _body(_points(points, variation, profile))


def controls_body(controls: Sequence[Control]) -> bytes:
    """The object headers and data of ``controls`` in the order given (validated)."""
    if not controls:
        raise BadParameter("operate needs at least one control")
    return _body([_item(control) for control in controls])


def _sent_controls(body: bytes) -> list[DnpObject]:
    """The controls as they travel, read back from the request's own octets (so values are
    compared after the wire's rounding, a single-precision float for instance)."""
    request = parse_request(bytes((0xC0, FunctionCode.DIRECT_OPERATE)) + body)
    assert not request.undecoded, request.undecoded
    return request.objects


def _same(sent: DnpObject, echoed: DnpObject) -> bool:
    if (sent.group, sent.variation, sent.index) != (echoed.group, echoed.variation, echoed.index):
        return False
    a, b = sent.value, echoed.value
    if isinstance(a, Crob) and isinstance(b, Crob):
        return (a.code, a.count, a.on_ms, a.off_ms) == (b.code, b.count, b.on_ms, b.off_ms)
    if isinstance(a, AnalogCommand) and isinstance(b, AnalogCommand):
        return a.value == b.value
    return False


def _statuses(
    sent: list[DnpObject], result: ExchangeResult | None, profile: ControlProfile | None
) -> list[ControlStatus]:
    """One status per control sent, matched with what the response echoed: the first echoed
    command object of the same group and index, in order."""
    echoes: dict[tuple[int, int | None], deque[DnpObject]] = defaultdict(deque)
    if result is not None:
        for response in result.responses:
            for obj in response.objects:
                if obj.group in (CROB_GROUP, ANALOG_GROUP):
                    echoes[(obj.group, obj.index)].append(obj)
    out = []
    for control in sent:
        index = control.index
        assert index is not None
        queue = echoes.get((control.group, index))
        echoed = queue.popleft() if queue else None
        status = None
        if echoed is not None and isinstance(echoed.value, Crob | AnalogCommand):
            status = echoed.value.status
        point_type: Literal["bo", "ao"] = "bo" if control.group == CROB_GROUP else "ao"
        value: str | int | float
        if isinstance(control.value, Crob):
            value = control.value.op
        else:
            assert isinstance(control.value, AnalogCommand)
            value = control.value.value
        out.append(
            ControlStatus(
                type=point_type,
                index=index,
                name=profile.name_of(point_type, index) if profile is not None else None,
                variation=control.variation,
                value=value,
                status=status,
                echoed=echoed is not None and _same(control, echoed),
            )
        )
    return out


def _accepted(result: ExchangeResult, statuses: list[ControlStatus]) -> bool | None:
    took = answered(result)
    if took is None:
        return None
    return took and all(s.status == SUCCESS for s in statuses)


async def operate(
    session: SessionLike,
    points: dict[str, dict[str, object]],
    mode: str = "direct",
    variation: int | None = None,
    profile: ControlProfile | None = None,
) -> OperateResult:
    """Operate the binary and analog outputs ``points`` names (see the module's notes)."""
    _checked_mode(mode)
    return await _operate(session, build_body(points, variation, profile), mode, profile)


async def operate_controls(
    session: SessionLike,
    controls: Sequence[Control],
    mode: str = "direct",
    profile: ControlProfile | None = None,
) -> OperateResult:
    """Operate ``controls`` in one request, in the order given, each sent as it is (the
    profile only names them)."""
    _checked_mode(mode)
    return await _operate(session, controls_body(controls), mode, profile)


def _checked_mode(mode: str) -> None:
    if mode not in MODES:
        raise BadParameter(f"mode {mode!r} is not one of {', '.join(MODES)}")


async def _operate(
    session: SessionLike, body: bytes, mode: str, profile: ControlProfile | None
) -> OperateResult:
    sent = _sent_controls(body)
    checked_mode: Mode = mode  # type: ignore[assignment]
    if mode == "direct_no_ack":
        result = await session.exchange(FunctionCode.DIRECT_OPERATE_NR, body)
        return OperateResult(
            mode=checked_mode,
            operated=True,
            accepted=None,
            statuses=_statuses(sent, None, profile),
            exchanges=[result.record],
        )
    exchanges: list[Exchange] = []
    if mode == "select":
        selected = await session.exchange(FunctionCode.SELECT, body)
        exchanges.append(selected.record)
        statuses = _statuses(sent, selected, profile)
        accepted = _accepted(selected, statuses)
        if not accepted:
            return OperateResult(checked_mode, False, accepted, statuses, exchanges)
        function = FunctionCode.OPERATE
    else:
        function = FunctionCode.DIRECT_OPERATE
    result = await session.exchange(function, body)
    exchanges.append(result.record)
    statuses = _statuses(sent, result, profile)
    return OperateResult(checked_mode, True, _accepted(result, statuses), statuses, exchanges)
