"""Which points of its map the simulated DER serves: every one but the points of a function
its supports input says it does not support. Of such a function only the supports input,
the enable output and the enabled input are served (the points that say what it is); its
settings, their mirrors and its readings are not, as a DER that lacks a function has no
such settings."""

from __future__ import annotations

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind

Key = tuple[Kind, int]


def unserved_points(point_map: PointMap) -> frozenset[Key]:
    """The points of ``point_map`` the DER does not serve (see the module's notes)."""
    unserved: set[Key] = set()
    for function in point_map.functions:
        supports = None if function.supports is None else point_map.get(Kind.BI, function.supports)
        if supports is None or bool(supports.value):
            continue
        keep: set[Key] = {(Kind.BI, supports.index), (Kind.BO, function.enable)}
        if function.enabled is not None:
            keep.add((Kind.BI, function.enabled))
        unserved.update(
            (p.kind, p.index)
            for p in point_map.function_points(function)
            if (p.kind, p.index) not in keep
        )
    return frozenset(unserved)
