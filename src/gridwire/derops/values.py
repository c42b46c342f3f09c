"""From a value a caller gives for an output to the control that carries it, checked before
anything is sent.

- A binary output takes true or false, 0 or 1, or one of its states by name in any case; it
  travels as LATCH_ON (true) or LATCH_OFF (false).
- An analog output takes a number in engineering units (or, for an enumerated point, a value
  by its name). In variation 1 (32-bit, the default) or 2 (16-bit) it travels as the nearest
  whole number of ``(value - offset) / multiplier``; in variation 3 (single) or 4 (double
  precision) it travels as the engineering value itself, since floating-point variations are
  not scaled (the DNP3 Device Profile's rule). A value outside the tables' range (given in
  engineering units in the message) or the variation's range is refused naming the point.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Final

from gridwire.der.points import Point
from gridwire.der.text import first_sentence
from gridwire.derops.readings import engineering, engineering_range, units_of
from gridwire.errors import BadParameter
from gridwire.master.controls import Control

Requested = bool | int | float | str

_LIMITS: Final = {1: (-(2**31), 2**31 - 1), 2: (-(2**15), 2**15 - 1)}
_FLOAT32_MAX: Final = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


@dataclass(frozen=True, slots=True)
class Planned:
    """One output's value made ready: the control that carries it; ``sent``, the whole number
    sent (None for a floating-point variation); ``sent_value``, what the outstation is asked
    to hold, in engineering units (a binary output's state)."""

    point: Point
    requested: Requested
    control: Control
    sent: int | None
    sent_value: bool | int | float


def describe(point: Point) -> str:
    """``AO88 (Active power limit ...)``: a point as refusals name it, by the first sentence
    of its label (the name without the values an enumeration lists)."""
    return f"{point.address} ({first_sentence(point.label)})"


def binary_state(point: Point, value: Requested) -> bool:
    """The state ``value`` asks of a binary point; RequestError naming the point otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        state = point.state_value(value)
        if state is not None:
            return state
    states = f", or {point.states[0]!r}/{point.states[1]!r}" if point.states else ""
    raise BadParameter(f"{describe(point)}: {value!r} is not true, false, 0, 1{states}")


def number_text(number: float) -> str:
    """A number as a person writes it: ``100``, ``0.5``, ``2147483647`` (no exponent for a
    whole number)."""
    if math.isfinite(number) and float(number).is_integer() and abs(number) < 1e18:
        return str(int(number))
    return repr(round(number, 9)) if math.isfinite(number) else repr(number)


def _shown(point: Point, number: float) -> str:
    units = units_of(point)
    return f"{number_text(number)} {units}" if units else number_text(number)


def range_text(point: Point) -> str:
    """The tables' range of a point in engineering units: ``0 to 100 %``, ``at least 0``."""
    low, high = engineering_range(point)
    if low is not None and high is not None:
        return f"{_shown(point, low)} to {_shown(point, high)}"
    if low is not None:
        return f"at least {_shown(point, low)}"
    if high is not None:
        return f"at most {_shown(point, high)}"
    return "any value"


def _enumerated(point: Point, name: str) -> int:
    wanted = name.strip().casefold()
    for item in point.enumeration or ():
        if item.name.casefold() == wanted:
            return item.value
    if point.enumeration:
        names = ", ".join(f"{i.value} {i.name}" for i in point.enumeration)
        raise BadParameter(f"{describe(point)}: {name!r} is not one of its values ({names})")
    raise BadParameter(f"{describe(point)}: {name!r} is not a number")


def _number(point: Point, value: Requested) -> tuple[float, int | None]:
    """The engineering value asked for, and the raw value when it was given by name."""
    if isinstance(value, str):
        raw = _enumerated(point, value)
        return float(engineering(point, raw)), raw
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadParameter(f"{describe(point)}: {value!r} is not a number")
    if not math.isfinite(value):
        raise BadParameter(f"{describe(point)}: {value!r} is not a finite number")
    return float(value), None


def out_of_range(point: Point, asked: float, what: str = "") -> BadParameter:
    """The refusal of ``asked`` (engineering units) beyond the tables' range of ``point``."""
    return BadParameter(
        f"{what or describe(point)}: {_shown(point, asked)} is outside the tables' range "
        f"{range_text(point)}; nothing was sent"
    )


def analog_plan(point: Point, value: Requested, variation: int | None) -> Planned:
    """The control for an analog output (see the module's notes)."""
    chosen = variation or 1
    if chosen not in (1, 2, 3, 4):
        raise BadParameter(f"variation {variation!r} is not 1, 2, 3 or 4 (g41)")
    asked, raw = _number(point, value)
    if raw is None:
        raw = _raw(point, asked)
    bounded = point.minimum is not None or point.maximum is not None
    if (raw is None and bounded) or (raw is not None and not point.in_range(raw)):
        raise out_of_range(point, asked)
    if chosen in (3, 4):
        if chosen == 3 and abs(asked) > _FLOAT32_MAX:
            raise BadParameter(f"{describe(point)}: {number_text(asked)} does not fit g41v3")
        control = Control("ao", point.index, asked, chosen)
        return Planned(point, value, control, None, asked)
    low, high = _LIMITS[chosen]
    if raw is None or not low <= raw <= high:
        bits = 32 if chosen == 1 else 16
        shown = number_text(asked) if raw is None else f"{raw} (transmitted)"
        raise BadParameter(f"{describe(point)}: {shown} does not fit g41v{chosen} ({bits}-bit)")
    control = Control("ao", point.index, raw, chosen)
    return Planned(point, value, control, raw, engineering(point, raw))


def _raw(point: Point, asked: float) -> int | None:
    """The whole number ``asked`` is transmitted as; None when it is too large to be one (a
    finite value divided by a small multiplier can overflow to infinity)."""
    quotient = (asked - point.offset) / point.multiplier
    return round(quotient) if math.isfinite(quotient) else None


def binary_plan(point: Point, value: Requested) -> Planned:
    state = binary_state(point, value)
    return Planned(point, value, Control("bo", point.index, state), None, state)


def whole(value: object, what: str) -> int:
    """``value`` as a whole number (900.0 is 900); RequestError naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadParameter(f"{what}: {value!r} is not a number")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise BadParameter(f"{what}: {value!r} is not a whole number")
    return int(value)
