"""DER functions and the curve block, as the tables lay them out.

A DER function (volt-var, constant power factor...) is a set of points around one enable
output (BO): an input saying whether the DER supports the function, the input saying whether it
is enabled (the enable output's mirror), and its settings (AO, each mirrored by an AI).

The curve block is a window onto one stored curve at a time: writing the selector (AO244 in the
profile's numbering) picks the curve; the outputs that follow it hold the curve's type, its
number of points, the units of X and of Y, then X and Y of each point; the inputs that follow
the selector's mirror (AI328) read the same back. An indicator input (BI107) says whether the
selected curve is referenced by a function.
"""

from __future__ import annotations

from dataclasses import dataclass

# Offsets in the curve edit window, from the selector (outputs) or its mirror (inputs).
CURVE_TYPE = 1
CURVE_POINTS = 2
CURVE_X_UNITS = 3
CURVE_Y_UNITS = 4
CURVE_FIRST_X = 5


@dataclass(frozen=True, slots=True)
class CurveRef:
    """A setting of a function that holds the number of a stored curve, and the curve types
    (values of the curve block's type point) a curve it names must have."""

    setting: int
    types: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class DerFunction:
    """One DER function. Indices: ``enable`` is a BO, ``supports`` and ``enabled`` are BIs,
    ``settings`` are AOs (their mirrors, and inputs marked with the enable output, belong to
    the function too)."""

    key: str
    name: str
    purpose: str
    enable: int
    supports: int | None = None
    enabled: int | None = None
    settings: tuple[int, ...] = ()
    curves: tuple[CurveRef, ...] = ()

    @property
    def curve_types(self) -> tuple[int, ...]:
        """Every curve type the function takes, in the order its settings give them."""
        seen: list[int] = []
        for ref in self.curves:
            seen.extend(t for t in ref.types if t not in seen)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class CurveBlock:
    """Where the curve block sits. ``selector`` is an AO index, ``readback`` the AI index of
    its mirror, ``referenced`` the BI index of the referenced indicator; ``max_points`` is how
    many X/Y pairs the window holds; ``curves`` is how many curves the outstation stores when
    the tables say (curves are numbered from 1)."""

    selector: int
    readback: int
    referenced: int | None
    max_points: int
    curves: int | None = None

    def output(self, offset: int) -> int:
        """The AO index at ``offset`` in the window (0 is the selector)."""
        return self.selector + offset

    def input(self, offset: int) -> int:
        """The AI index at ``offset`` in the window (0 is the selector's mirror)."""
        return self.readback + offset

    def x_offset(self, point: int) -> int:
        """Offset of X of the curve's ``point`` (numbered from 1); Y follows it."""
        if not 1 <= point <= self.max_points:
            raise ValueError(f"a curve point is numbered 1 to {self.max_points}, not {point}")
        return CURVE_FIRST_X + 2 * (point - 1)

    @property
    def size(self) -> int:
        """Number of outputs (and of inputs) in the window, the selector included."""
        return CURVE_FIRST_X + 2 * self.max_points

    def outputs(self) -> range:
        return range(self.selector, self.selector + self.size)

    def inputs(self) -> range:
        return range(self.readback, self.readback + self.size)


@dataclass(frozen=True, slots=True)
class Curve:
    """A stored curve as the curve block shows it: its number (from 1), type, X and Y units
    (values of the window's type and units points) and its points as transmitted."""

    number: int
    type: int
    x_units: int
    y_units: int
    points: tuple[tuple[int, int], ...] = ()
