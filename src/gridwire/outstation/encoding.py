"""Putting database values and events into objects: sizes, and values made to fit a variation.

A value too large or too small for its variation's integer is sent as the variation's
largest or smallest value with OVER_RANGE set (IEEE 1815-2012, the analog flag octet); a
non-finite value sent as an integer likewise (NaN as 0). Integer variations take a float
value rounded to the nearest whole number. Counters roll over instead: a 16-bit variation
carries the low 16 bits of the count.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Final

from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.fixed import fixed_codec
from gridwire.dnp3.objects.table import Layout, lookup
from gridwire.outstation.points import OVER_RANGE, Value

_LIMITS: Final = {
    "i": (-(2**31), 2**31 - 1),
    "I": (0, 2**32 - 1),
    "h": (-(2**15), 2**15 - 1),
    "H": (0, 2**16 - 1),
}
_HAS_OVER_RANGE: Final = frozenset({30, 31, 32, 33, 40, 42})
_COUNTERS: Final = frozenset({20, 21, 22, 23})


@cache
def value_code(group: int, variation: int) -> str | None:
    """The struct code of the numeric value of group/variation (``i I h H f d``), or None
    when its value is not a plain number (binaries, packed objects, composites)."""
    decl = lookup(group, variation)
    if decl is None or decl.layout is not Layout.FIXED:
        return None
    for field in decl.fields:
        if field.read_code in ("i", "I", "h", "H", "f", "d") and any(
            role == "value" for role, _ in field.reads
        ):
            return field.read_code
    return None


@cache
def object_size(group: int, variation: int) -> tuple[int, int]:
    """(octets, bits) of one object: fixed layouts give octets, packed ones bits."""
    decl = lookup(group, variation)
    if decl is None:
        raise EncodeError(f"unknown object g{group}v{variation}")
    if decl.layout is Layout.PACKED:
        return 0, decl.bits
    if decl.layout is Layout.FIXED:
        return fixed_codec(decl).size, 0
    raise EncodeError(f"g{group}v{variation} has no fixed size")


def fitting(group: int, variation: int, room: int, prefix: int) -> int:
    """How many objects of group/variation fit in ``room`` octets after a header of up to 11
    octets (group, variation, qualifier and a 4+4-octet range), each led by ``prefix``
    octets of index."""
    octets, bits = object_size(group, variation)
    room -= 11
    if room <= 0:
        return 0
    if bits:
        return room * 8 // bits
    return room // (octets + prefix)


Fit = Callable[[Value, int], tuple[Value, int]]


def fit_value(group: int, variation: int, value: Value, flags: int) -> tuple[Value, int]:
    """The value as the variation can carry it, and the flags (OVER_RANGE added when the value
    had to be clamped)."""
    return fitter(group, variation)(value, flags)


def _as_is(value: Value, flags: int) -> tuple[Value, int]:
    return value, flags


def _as_float(value: Value, flags: int) -> tuple[Value, int]:
    return float(value), flags


@cache
def fitter(group: int, variation: int) -> Fit:
    """The function that fits values to group/variation (see :func:`fit_value`)."""
    code = value_code(group, variation)
    if code is None:
        return _as_is
    if code in ("f", "d"):
        return _as_float
    low, high = _LIMITS[code]
    if group in _COUNTERS:

        def rolled(value: Value, flags: int) -> tuple[Value, int]:
            return int(value) % (high + 1), flags  # a counter rolls over

        return rolled
    over = OVER_RANGE if group in _HAS_OVER_RANGE else 0

    def clamped(value: Value, flags: int) -> tuple[Value, int]:
        if type(value) is int and low <= value <= high:
            return value, flags
        number = float(value)
        if math.isnan(number):
            return 0, flags | over
        if number > high:
            return high, flags | over
        if number < low:
            return low, flags | over
        return round(number), flags

    return clamped
