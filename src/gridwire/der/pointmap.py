"""The point map: every point of the profile an outstation serves, its DER functions and its
curve block, with the lookups the simulated outstation and the master make."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gridwire.der.functions import CurveBlock, DerFunction
from gridwire.der.naming import NameIndex
from gridwire.der.points import KIND_OF_TYPE, Address, Kind, Point
from gridwire.der.schedules import ScheduleBlock, check_schedule_block
from gridwire.der.text import normalize
from gridwire.der.validation import check_curve_block, checked_points, claim_function_points
from gridwire.errors import BadParameter, UnknownName


class PointMap:
    """An immutable map of the profile's points.

    ``title`` names the tables; ``demo`` marks the built-in demo map; ``source`` says where the
    map came from (a workbook's file name, for instance); ``blocks`` holds the block starts the
    tables' key gives (``Meter_AI``: 569...).
    """

    __slots__ = (
        "_by_address",
        "_by_kind",
        "_curve_block",
        "_functions",
        "_mirrors",
        "_names",
        "_purposes",
        "_schedule_block",
        "blocks",
        "demo",
        "source",
        "title",
    )

    def __init__(
        self,
        points: Iterable[Point],
        *,
        title: str,
        demo: bool = False,
        source: str | None = None,
        blocks: Mapping[str, int] | None = None,
        functions: Iterable[DerFunction] = (),
        curve_block: CurveBlock | None = None,
        schedule_block: ScheduleBlock | None = None,
    ) -> None:
        by_address = checked_points(points)
        self._functions = claim_function_points(by_address, functions)
        if curve_block is not None:
            check_curve_block(by_address, curve_block)
        self._curve_block = curve_block
        if schedule_block is not None:
            check_schedule_block(by_address, schedule_block)
        self._schedule_block = schedule_block
        ordered = sorted(by_address.values(), key=lambda p: p.address.sort_key)
        self._by_address = {p.address: p for p in ordered}
        self._by_kind: dict[Kind, tuple[Point, ...]] = {
            kind: tuple(p for p in ordered if p.kind is kind) for kind in Kind
        }
        self._mirrors: dict[Address, Address] = {}
        for point in ordered:
            if point.associated is not None:
                self._mirrors[point.address] = point.associated
                self._mirrors.setdefault(point.associated, point.address)
        self._names: NameIndex | None = None
        self._purposes: dict[str, tuple[Point, ...]] | None = None
        self.title = title
        self.demo = demo
        self.source = source
        self.blocks: dict[str, int] = dict(blocks or {})

    # -- points ------------------------------------------------------------------------------

    @property
    def points(self) -> tuple[Point, ...]:
        """Every point, by kind (BI, BO, CTR, AI, AO) then index."""
        return tuple(self._by_address.values())

    def __len__(self) -> int:
        return len(self._by_address)

    def __getitem__(self, address: Address) -> Point:
        """The point at ``address``; KeyError when the map has none there."""
        return self._by_address[address]

    def by_kind(self, kind: Kind | str) -> tuple[Point, ...]:
        return self._by_kind[Kind(kind)]

    def get(self, kind: Kind | str, index: int) -> Point | None:
        return self._by_address.get(Address(Kind(kind), index))

    def at(self, address: Address | str) -> Point | None:
        """The point at an address (``Address`` or text such as ``AO12``), or None."""
        if isinstance(address, str):
            parsed = Address.parse(address)
            if parsed is None:
                return None
            address = parsed
        return self._by_address.get(address)

    def name_of(self, type_name: str, index: int) -> str | None:
        """The name of the point an object of the API's ``type`` (bi, bo, counter, frozen, ai,
        ao) and index reports, or None when the map has no such point."""
        kind = KIND_OF_TYPE.get(type_name)
        point = None if kind is None else self._by_address.get(Address(kind, index))
        if point is None or (type_name == "frozen" and not point.frozen):
            return None
        return point.name

    def mirror(self, point: Point | Address) -> Point | None:
        """The point that mirrors ``point``: an output's input, an input's output."""
        address = point.address if isinstance(point, Point) else point
        other = self._mirrors.get(address)
        return None if other is None else self._by_address.get(other)

    # -- naming ------------------------------------------------------------------------------

    def resolve(self, name: str, *, write: bool = False) -> Point:
        """The point a caller names (spec, "DER naming"); RequestError when none or several."""
        if self._names is None:
            self._names = NameIndex(self.points)
        return self._names.resolve(name, write=write)

    def resolve_all(self, names: Iterable[str], *, write: bool = False) -> list[Point]:
        return [self.resolve(name, write=write) for name in names]

    # -- functions and groups ----------------------------------------------------------------

    @property
    def functions(self) -> tuple[DerFunction, ...]:
        return tuple(self._functions.values())

    def function(self, key: str) -> DerFunction | None:
        return self._functions.get(key)

    def function_of(self, point: Point) -> DerFunction | None:
        """The function a point belongs to, if any."""
        if point.enable is None:
            return None
        for function in self._functions.values():
            if function.enable == point.enable:
                return function
        return None

    def function_points(self, function: DerFunction) -> tuple[Point, ...]:
        """Every point of a function: supports, enable and enabled, settings and their mirrors,
        and any other point marked with its enable output; in listing order."""
        return tuple(p for p in self._by_address.values() if p.enable == function.enable)

    @property
    def purposes(self) -> tuple[str, ...]:
        """The distinct purposes the tables give, in listing order."""
        return tuple(dict.fromkeys(p.purpose for p in self._by_address.values() if p.purpose))

    def find_function(self, text: str) -> DerFunction | None:
        """The function ``text`` names by its key, name or enable output (address or name), or
        by a purpose only it has; RequestError when it names several."""
        key = normalize(text)
        found = [
            f
            for f in self._functions.values()
            if key in (normalize(f.key), normalize(f.name)) or self._names_enable(text, f)
        ]
        if not found:
            found = [
                f for f in self._functions.values() if f.purpose and normalize(f.purpose) == key
            ]
            if len(found) > 1:
                return None
        if len(found) > 1:
            raise BadParameter(
                f"'{text}' names more than one function: " + ", ".join(f.key for f in found)
            )
        return found[0] if found else None

    def group(self, text: str) -> tuple[Point, ...]:
        """The points of a group for der.read: a function by its key, name, purpose or enable
        output, or else everything of one purpose (Nameplate, Monitoring...)."""
        function = self.find_function(text)
        if function is not None:
            return self.function_points(function)
        points = self._by_purpose().get(normalize(text))
        if points:
            return points
        functions = ", ".join(self._functions) or "none"
        purposes = ", ".join(self.purposes) or "none"
        raise UnknownName(
            f"no function or purpose is named '{text}' "
            f"(functions: {functions}; purposes: {purposes})"
        )

    def _by_purpose(self) -> dict[str, tuple[Point, ...]]:
        """Points by purpose (in the form names are compared in), in listing order."""
        if self._purposes is None:
            grouped: dict[str, list[Point]] = {}
            for point in self._by_address.values():
                if point.purpose:
                    grouped.setdefault(normalize(point.purpose), []).append(point)
            self._purposes = {key: tuple(points) for key, points in grouped.items()}
        return self._purposes

    def _names_enable(self, text: str, function: DerFunction) -> bool:
        address = Address.parse(text)
        if address is not None:
            return address == Address(Kind.BO, function.enable)
        enable = self._by_address.get(Address(Kind.BO, function.enable))
        if enable is None:
            return False
        if self._names is None:
            self._names = NameIndex(self.points)
        return enable in self._names.matches(text, frozenset({Kind.BO}))

    # -- curves ------------------------------------------------------------------------------

    @property
    def curve_block(self) -> CurveBlock | None:
        return self._curve_block

    @property
    def schedule_block(self) -> ScheduleBlock | None:
        return self._schedule_block

    def describe(self) -> str:
        """One line: the title and how many points of each kind."""
        counts = ", ".join(f"{kind.value} {len(self._by_kind[kind])}" for kind in Kind)
        demo = " (demo)" if self.demo else ""
        return (
            f"{self.title}{demo}: {len(self)} points ({counts}), {len(self._functions)} functions"
        )
