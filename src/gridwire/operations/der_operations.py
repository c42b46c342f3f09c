"""The IEEE 1815.2 DER operations (``der.read`` ... ``der.write_curve``): one declaration
each, calling :mod:`gridwire.derops` through its Python API (:class:`gridwire.derops.Der`).

Each needs the outstation to have a point map (a request error naming the outstation and how to
give it one otherwise). ``der.write``, ``der.enable``, ``der.disable``, ``der.write_curve``
and ``der.curve`` given a ``number`` command the outstation: their parameters are checked
against the point map first (``check``), so a bad command is a request error even from a
service that may not command; then the ``not_allowed`` gate; each is one command record
(:mod:`gridwire.master.command_log`) with its parameters (points and values) and its result.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from gridwire.derops.curve import CurveResult, curve_block_of, selector_control
from gridwire.derops.enable import EnableResult
from gridwire.derops.functions import FunctionsResult
from gridwire.derops.profile import function_named, point_map_of
from gridwire.derops.read import DerReadResult, read_targets
from gridwire.derops.write import DerWriteResult, plan_write
from gridwire.derops.write_curve import WriteCurveResult, plan_curve
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OutstationParams, declare
from gridwire.operations.der_windows import SelectParams, der, read_window, write_window
from gridwire.operations.limits import NAME_LIMIT, POINTS_LIMIT

Mode = Literal["direct", "select", "direct_no_ack"]
Number = int | float
WriteValue = bool | int | float | str

Name = Annotated[str, Field(min_length=1, max_length=NAME_LIMIT)]


class DerReadParams(OutstationParams):
    names: list[Name] | None = Field(
        default=None,
        max_length=POINTS_LIMIT,
        description="Points by name (whole or first sentence) or address",
    )
    group: Name | None = Field(
        default=None,
        description="A function by key, name, purpose or enable output, or every point of "
        "one purpose (Nameplate, Monitoring...)",
    )

    @field_validator("names", mode="before")
    @classmethod
    def _not_one_string(cls, value: object) -> object:
        if isinstance(value, str):
            raise PydanticCustomError("list_type", "a list of names or addresses, not one string")
        return value


class DerWriteParams(OutstationParams):
    points: dict[Name, WriteValue] = Field(
        min_length=1,
        max_length=POINTS_LIMIT,
        description="Values by output name or address, written in this order: a number in "
        "engineering units, true/false/0/1 or a state name for a binary output",
    )
    verify: bool = Field(default=False, description="Read every mirror input afterwards")
    mode: Mode = "direct"
    variation: Literal[1, 2, 3, 4] | None = Field(
        default=None,
        description="g41 variation: 1 (default) and 2 carry the scaled whole number, 3 and 4 "
        "the engineering value as a float",
    )


class DerFunctionParams(OutstationParams):
    function: Name = Field(description="The function by key, name, purpose or enable output")
    mode: Mode = "direct"


class DerCurveParams(SelectParams):
    number: Number | None = Field(
        default=None, description="Select this stored curve first (a command)"
    )


class DerWriteCurveParams(OutstationParams):
    number: Number = Field(description="The stored curve, from 1")
    type: Number = Field(description="Curve type code (2 volt-var, 5 volt-watt...)")
    x_units: Number = Field(description="X units code (129 percent of nominal voltage...)")
    y_units: Number = Field(description="Y units code (2 VArs as a percent of VARMax...)")
    points: list[Annotated[list[Number], Field(min_length=2, max_length=2)]] = Field(
        description="[x, y] pairs as transmitted (whole numbers), at most the window's size"
    )
    mode: Mode = "direct"


def _check_read(c: Context, p: DerReadParams) -> None:
    read_targets(point_map_of(c.master, p.outstation), p.names, p.group)


def _check_write(c: Context, p: DerWriteParams) -> None:
    plan_write(point_map_of(c.master, p.outstation), p.points, p.variation)


def _check_function(c: Context, p: DerFunctionParams) -> None:
    function_named(point_map_of(c.master, p.outstation), p.function)


def _check_write_curve(c: Context, p: DerWriteCurveParams) -> None:
    point_map = point_map_of(c.master, p.outstation)
    plan_curve(point_map, p.number, p.type, p.x_units, p.y_units, p.points)


def _profile_only(c: Context, p: OutstationParams) -> None:
    point_map_of(c.master, p.outstation)


DER_OPERATIONS: list[Operation[Any]] = [
    declare(
        "der.read",
        params=DerReadParams,
        result=DerReadResult,
        handler=lambda c, p: der(c, p.outstation).read(p.names, p.group),
        check=_check_read,
        summary="Read DER points by name or group, in engineering units, in one request",
        description="names (a list) and/or group; each point with value, raw, state, flags "
        "and quality (good, comm_lost, restart, offline, no_flags, not_reported). A read the "
        "outstation refuses whole is read again range by range.",
    ),
    declare(
        "der.write",
        params=DerWriteParams,
        result=DerWriteResult,
        handler=lambda c, p: der(c, p.outstation).write(
            p.points, verify=p.verify, mode=p.mode, variation=p.variation
        ),
        commands=True,
        check=_check_write,
        summary="Write DER outputs by name in engineering units; verify reads the mirrors",
        description="One request in the order given; a value outside the tables' range is "
        "refused before anything is sent. With verify, matches per point (within one "
        "multiplier step) and verified.",
    ),
    declare(
        "der.enable",
        params=DerFunctionParams,
        result=EnableResult,
        handler=lambda c, p: der(c, p.outstation).enable(p.function, p.mode),
        commands=True,
        check=_check_function,
        summary="Latch a DER function's enable output on, then read whether it is enabled",
    ),
    declare(
        "der.disable",
        params=DerFunctionParams,
        result=EnableResult,
        handler=lambda c, p: der(c, p.outstation).disable(p.function, p.mode),
        commands=True,
        check=_check_function,
        summary="Latch a DER function's enable output off, then read whether it is enabled",
    ),
    declare(
        "der.functions",
        params=OutstationParams,
        result=FunctionsResult,
        handler=lambda c, p: der(c, p.outstation).functions(),
        check=_profile_only,
        summary="Every DER function: supported and enabled (one read), settings, units, ranges",
    ),
    read_window(
        "curve",
        params=DerCurveParams,
        result=CurveResult,
        handler=lambda c, p: der(c, p.outstation).curve(p.number, p.mode),
        block_of=curve_block_of,
        selector=selector_control,
        description="Points as transmitted (the curve block has no multiplier); type, X and "
        "Y units by code and by name; referenced.",
    ),
    write_window(
        "curve",
        params=DerWriteCurveParams,
        result=WriteCurveResult,
        handler=lambda c, p: der(c, p.outstation).write_curve(
            p.number, p.type, p.x_units, p.y_units, p.points, p.mode
        ),
        check=_check_write_curve,
    ),
]
