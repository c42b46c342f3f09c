"""The simulated DER's stored curves and the curve edit window onto them.

The window (the curve block of the point map: selector AO244, then type, number of points,
X units, Y units and the X/Y pairs; their mirrors from AI328) shows one stored curve at a
time. Curves are numbered from 1 to the number stored. Curve points are the whole numbers
that travel; :meth:`CurveStore.evaluate` interpolates linearly between them and holds the end
values beyond the first and last point.

The demo DER starts with four curves: 1 volt-var, 2 volt-watt, 3 watt-var, and 4 empty (type
0, curve disabled).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from gridwire.der.functions import (
    CURVE_FIRST_X,
    CURVE_POINTS,
    CURVE_TYPE,
    CURVE_X_UNITS,
    CURVE_Y_UNITS,
    CurveBlock,
)
from gridwire.dnp3.objects.controls import CommandStatus

# Curve types and units (the values of AO245, AO247 and AO248).
VOLT_VAR, WATT_VAR, VOLT_WATT = 2, 4, 5
PERCENT_VOLTAGE, PERCENT_WATTS = 129, 138
VARS_PERCENT_VARMAX, WATTS_PERCENT_WMAX = 2, 5


@dataclass(slots=True)
class Curve:
    type: int = 0
    x_units: int = 0
    y_units: int = 0
    points: list[tuple[int, int]] = field(default_factory=list)


def demo_curves() -> dict[int, Curve]:
    """The curves the demo DER starts with (X in percent of the reference voltage or of the
    maximum active power; Y in percent of the maximum reactive or active power)."""
    return {
        1: Curve(
            VOLT_VAR,
            PERCENT_VOLTAGE,
            VARS_PERCENT_VARMAX,
            [(92, 44), (98, 0), (102, 0), (108, -44)],
        ),
        2: Curve(
            VOLT_WATT, PERCENT_VOLTAGE, WATTS_PERCENT_WMAX, [(100, 100), (106, 100), (110, 0)]
        ),
        3: Curve(WATT_VAR, PERCENT_WATTS, VARS_PERCENT_VARMAX, [(0, 0), (50, 0), (100, -44)]),
        4: Curve(),
    }


class CurveStore:
    """Stored curves and which one the window shows."""

    def __init__(self, block: CurveBlock, curves: dict[int, Curve] | None = None) -> None:
        self.block = block
        self.count = block.curves if block.curves is not None else 4
        start = curves if curves is not None else demo_curves()
        self.curves = {n: start.get(n, Curve()) for n in range(1, self.count + 1)}
        self.selected = 1

    def exists(self, number: int) -> bool:
        return 1 <= number <= self.count

    def curve(self, number: int) -> Curve | None:
        return self.curves.get(number)

    def window(self) -> list[int]:
        """The window's values, offset 0 (the selector) to the last Y."""
        return [self.value_at(offset) for offset in range(self.block.size)]

    def value_at(self, offset: int) -> int:
        """The window's value at ``offset``: 0 for a point beyond the curve's points."""
        if offset == 0:
            return self.selected
        curve = self.curves[self.selected]
        if offset == CURVE_TYPE:
            return curve.type
        if offset == CURVE_POINTS:
            return len(curve.points)
        if offset == CURVE_X_UNITS:
            return curve.x_units
        if offset == CURVE_Y_UNITS:
            return curve.y_units
        pair, axis = divmod(offset - CURVE_FIRST_X, 2)
        if pair < min(len(curve.points), self.block.max_points):
            return curve.points[pair][axis]
        return 0

    def write(self, offset: int, value: int) -> Sequence[int]:
        """A write to the window at ``offset`` (0 selects a curve; the rest edit the selected
        one); the offsets whose values it may have changed. The caller has checked the
        rules."""
        if offset == 0:
            self.selected = value
            return range(self.block.size)
        curve = self.curves[self.selected]
        before = len(curve.points)
        if offset == CURVE_TYPE:
            curve.type = value
        elif offset == CURVE_POINTS:
            size = max(0, min(value, self.block.max_points))
            curve.points = (curve.points + [(0, 0)] * size)[:size]
        elif offset == CURVE_X_UNITS:
            curve.x_units = value
        elif offset == CURVE_Y_UNITS:
            curve.y_units = value
        else:
            pair, axis = divmod(offset - CURVE_FIRST_X, 2)
            while len(curve.points) <= pair:
                curve.points.append((0, 0))
            x, y = curve.points[pair]
            curve.points[pair] = (value, y) if axis == 0 else (x, value)
        after = len(curve.points)
        if after == before:
            return [offset]
        low, high = sorted((before, after))
        grown = range(CURVE_FIRST_X + 2 * low, CURVE_FIRST_X + 2 * high)
        return list(dict.fromkeys([offset, CURVE_POINTS, *grown]))

    def evaluate(self, number: int, x: float) -> float | None:
        """Y of curve ``number`` at ``x`` (None for a curve with no points)."""
        curve = self.curves.get(number)
        if curve is None or not curve.points:
            return None
        points = sorted(curve.points)
        if x <= points[0][0]:
            return float(points[0][1])
        for (x0, y0), (x1, y1) in pairwise(points):
            if x <= x1:
                if x1 == x0:
                    return float(y1)
                return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        return float(points[-1][1])


@dataclass(frozen=True, slots=True)
class CurveStatuses:
    """The statuses the curve block's refusals are answered with (decision "curve block
    statuses" in docs/DESIGN.md): a curve that does not exist is outside what the selector
    can name (OUT_OF_RANGE); a curve an enabled function is using is refused as the function's automation
    inhibits it (AUTOMATION_INHIBIT: IEEE 1815.2's curve lock, D46);
    a curve of a type the function cannot use is not supported by it (NOT_SUPPORTED)."""

    no_such_curve: CommandStatus = CommandStatus.OUT_OF_RANGE
    referenced: CommandStatus = CommandStatus.AUTOMATION_INHIBIT
    wrong_type: CommandStatus = CommandStatus.NOT_SUPPORTED


class NoCurves:
    """The curves of a DER that stores none: every lookup finds nothing."""

    def evaluate(self, number: int, x: float) -> float | None:
        return None
