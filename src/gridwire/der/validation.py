"""The rules a point map keeps, checked when one is built: every reference names a point of the
right kind, and every function claims its own points. A rule broken raises MapError naming the
point."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping

from gridwire.der.errors import MapError
from gridwire.der.functions import CurveBlock, DerFunction
from gridwire.der.points import MAX_INDEX, Address, Kind, Point


def checked_points(points: Iterable[Point]) -> dict[Address, Point]:
    """The points by address, each checked on its own; no two at one address."""
    by_address: dict[Address, Point] = {}
    for point in points:
        _check_point(point)
        if point.address in by_address:
            raise MapError(
                f"two points are {point.address}: '{by_address[point.address].name}' "
                f"and '{point.name}'"
            )
        by_address[point.address] = point
    for point in by_address.values():
        _check_association(point, by_address)
    return by_address


def _check_point(point: Point) -> None:
    where = f"{point.address}"
    if not 0 <= point.index <= MAX_INDEX:
        raise MapError(f"{where}: an index is 0 to {MAX_INDEX}")
    if not point.name.strip():
        raise MapError(f"{where} has no name")
    for field in ("event_class", "frozen_event_class"):
        value = getattr(point, field)
        if value is not None and value not in (0, 1, 2, 3):
            raise MapError(f"{where}: {field} is 0, 1, 2 or 3, not {value}")
    if not math.isfinite(point.multiplier) or point.multiplier == 0:
        raise MapError(f"{where}: the multiplier must be a finite number other than 0")
    if not math.isfinite(point.offset):
        raise MapError(f"{where}: the offset must be a finite number")
    if point.minimum is not None and point.maximum is not None and point.minimum > point.maximum:
        raise MapError(f"{where}: minimum {point.minimum} is above maximum {point.maximum}")
    if point.states is not None and not point.kind.is_binary:
        raise MapError(f"{where}: only a binary point has state names")
    if point.enumeration is not None and point.kind.is_binary:
        raise MapError(f"{where}: a binary point names its values as states, not an enumeration")
    if point.frozen and point.kind is not Kind.CTR:
        raise MapError(f"{where}: only a counter has a frozen counterpart")


def _check_association(point: Point, by_address: Mapping[Address, Point]) -> None:
    other = point.associated
    if other is None:
        return
    if other.kind is not point.kind.mirror:
        raise MapError(
            f"{point.address} is associated with {other}, which is not a "
            f"{point.kind.mirror or 'mirroring'} point"
        )
    if other not in by_address:
        raise MapError(f"{point.address} is associated with {other}, which is not in the map")


def claim_function_points(
    points: dict[Address, Point], functions: Iterable[DerFunction]
) -> dict[str, DerFunction]:
    """Functions by key, each checked against the points; every point a function lists (and its
    settings' mirrors) is marked with the function's enable output. ``points`` is updated."""
    by_key: dict[str, DerFunction] = {}
    for function in functions:
        if not function.key.strip():
            raise MapError(f"the function enabled by BO{function.enable} has no key")
        if function.key in by_key:
            raise MapError(f"two functions have the key '{function.key}'")
        by_key[function.key] = function
        for address in _function_addresses(function, points):
            _require(points, address, f"function '{function.key}'")
            point = points[address]
            if point.enable is not None and point.enable != function.enable:
                raise MapError(
                    f"{address} belongs to the function enabled by BO{point.enable}; "
                    f"function '{function.key}' lists it too"
                )
            points[address] = dataclasses.replace(point, enable=function.enable)
        for ref in function.curves:
            if ref.setting not in function.settings:
                raise MapError(
                    f"function '{function.key}': curve setting AO{ref.setting} is not "
                    "one of its settings"
                )
    return by_key


def _function_addresses(function: DerFunction, points: Mapping[Address, Point]) -> list[Address]:
    listed = [Address(Kind.BO, function.enable)]
    listed += [Address(Kind.BI, i) for i in (function.supports, function.enabled) if i is not None]
    for index in function.settings:
        setting = Address(Kind.AO, index)
        listed.append(setting)
        point = points.get(setting)
        if point is not None and point.associated is not None:
            listed.append(point.associated)
    return listed


def check_curve_block(points: Mapping[Address, Point], block: CurveBlock) -> None:
    """Every point of the curve edit window, the selectors and the indicator exist."""
    if block.max_points < 1:
        raise MapError("the curve block holds at least one curve point")
    if block.curves is not None and block.curves < 1:
        raise MapError("the curve block stores at least one curve")
    where = "the curve block"
    for index in block.outputs():
        _require(points, Address(Kind.AO, index), where)
    for index in block.inputs():
        _require(points, Address(Kind.AI, index), where)
    if block.referenced is not None:
        _require(points, Address(Kind.BI, block.referenced), where)


def _require(points: Mapping[Address, Point], address: Address, who: str) -> None:
    if address not in points:
        raise MapError(f"{who} names {address}, which is not in the map")
