"""What the curve and the schedule operations declare alike (DESIGN D229): reading what a
block's window shows (``der.curve``, ``der.schedule``), selecting it first when a number is
given, and storing one through the window (``der.write_curve``, ``der.write_schedule``).

A read given ``number`` commands the outstation; its number is checked against the selector's
range first (``check``), so a bad one is a request error even from a service that may not
command. Each declaration keeps its own parameters, result, handler and what its description
says of its fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import Field

from gridwire.der.pointmap import PointMap
from gridwire.derops.der_master import Der
from gridwire.derops.profile import point_map_of
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OutstationParams, declare

Mode = Literal["direct", "select", "direct_no_ack"]
Number = int | float


class SelectParams(OutstationParams):
    """Read what the window shows; given ``number``, select it first."""

    number: Number | None = Field(default=None, description="Select this first (a command)")
    mode: Mode = "direct"


S = TypeVar("S", bound=SelectParams)
W = TypeVar("W", bound=OutstationParams)


def der(c: Context, outstation: str) -> Der:
    """The DER operations' Python API on ``outstation``."""
    return Der(c.master, outstation)


def read_window(
    what: str,
    *,
    params: type[S],
    result: Any,
    handler: Callable[[Context, S], object],
    block_of: Callable[[PointMap], object],
    selector: Callable[[PointMap, object], object],
    description: str,
) -> Operation[Any]:
    """``der.<what>``: reads the ``what`` the block shows (``block_of`` refuses a profile
    without the block; ``selector`` checks a number given)."""

    def check(c: Context, p: S) -> None:
        point_map = point_map_of(c.master, p.outstation)
        block_of(point_map)
        if p.number is not None:
            selector(point_map, p.number)

    return declare(
        f"der.{what}",
        params=params,
        result=result,
        handler=handler,
        commands=lambda p: p.number is not None,
        check=check,
        summary=f"Read the {what} the {what} block shows; given number, select it first",
        description=f"{description} With number (a command) the selector's Operate result "
        "is selected.",
    )


def write_window(
    what: str,
    *,
    params: type[W],
    result: Any,
    handler: Callable[[Context, W], object],
    check: Callable[[Context, W], object],
    more: str = "",
) -> Operation[Any]:
    """``der.write_<what>``: stores one ``what`` through the window (``check`` plans it, so a
    bad value is a request error before the gate); ``more`` ends its description."""
    return declare(
        f"der.write_{what}",
        params=params,
        result=result,
        handler=handler,
        commands=True,
        check=check,
        summary=f"Store a {what}: selector, then its fields, then its points; read it back",
        description="Each write only when the one before was accepted; stopped_at names the "
        f"one that was not (selector, fields, points); matches says whether the {what} read "
        f"back is the one written.{more}",
    )
