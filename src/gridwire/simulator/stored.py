"""How a point of the map is stored in the simulated DER's database: the database's point
type for each kind, and the value it starts with."""

from __future__ import annotations

from gridwire.der.points import Kind, Point
from gridwire.outstation.points import PointType, Value

TYPE_OF_KIND: dict[Kind, PointType] = {
    Kind.BI: "bi",
    Kind.BO: "bo",
    Kind.AI: "ai",
    Kind.AO: "ao",
    Kind.CTR: "counter",
}


def initial_value(point: Point) -> Value | None:
    """The value ``point`` starts with: the map's, a whole float as an integer; None when the
    map gives none."""
    value = point.value
    if value is None:
        return None
    if point.kind.is_binary:
        return bool(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
