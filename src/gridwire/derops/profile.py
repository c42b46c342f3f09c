"""The profile a DER procedure works in: the outstation's point map, its functions by name,
and its points by name (the DER naming rules, README's "DER operations", carried out by
:mod:`gridwire.der.naming`).

Every ``der.*`` procedure but der.compare and der.document needs the outstation to have been
given a profile; one that has none is a RequestError naming the outstation and how to give
it one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gridwire.der.functions import DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Point
from gridwire.derops.errors import NotConfigured
from gridwire.errors import BadParameter, UnknownName
from gridwire.master import Master

HOW_TO_GIVE_A_PROFILE = (
    'add it with "profile": "ieee1815.2" (in add, or in its --config entry), or start the '
    "service with --profile"
)


def point_map_of(master: Master, outstation: str) -> PointMap:
    """The point map of ``outstation``'s profile; RequestError for an unknown outstation or
    one given no profile."""
    found = master.point_map(outstation)
    if found is None:
        raise NotConfigured(
            f"outstation {outstation!r} was given no profile, which names its points: "
            f"{HOW_TO_GIVE_A_PROFILE}"
        )
    if not isinstance(found, PointMap):
        raise NotConfigured(
            f"outstation {outstation!r}: its profile source gave a "
            f"{type(found).__name__}, not a gridwire.der PointMap"
        )
    return found


def function_named(point_map: PointMap, text: str) -> DerFunction:
    """The function ``text`` names by its key, name, purpose or enable output; RequestError
    listing the keys there are when it names none."""
    if not text.strip():
        raise BadParameter("a function is named by its key, name, purpose or enable output")
    function = point_map.find_function(text)
    if function is None:
        keys = ", ".join(f.key for f in point_map.functions) or "none"
        raise UnknownName(f"no function is named '{text}' (functions: {keys})")
    return function


def unique(points: Iterable[Point]) -> list[Point]:
    """``points`` with each point kept once, where it first appears."""
    return list({p.address: p for p in points}.values())


def named_points(point_map: PointMap, names: Sequence[str], *, write: bool = False) -> list[Point]:
    """The points ``names`` name (a read looks among inputs first, a write among outputs)."""
    return [point_map.resolve(name, write=write) for name in names]
