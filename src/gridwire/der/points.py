"""Points of the IEEE 1815.2 tables: their kinds, addresses and records.

A point is one row of the profile's tables: binary inputs and outputs (BI, BO), analog inputs
and outputs (AI, AO) and counters (CTR, each possibly with a frozen counterpart). Analog values
travel as whole numbers; ``engineering = raw x multiplier + offset`` gives them their units.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from enum import StrEnum

from gridwire.der.text import EnumValue, first_sentence, split_name

Number = int | float
MAX_INDEX = 0xFFFFFFFF


class Kind(StrEnum):
    """The kinds of point the tables list, by the names of their sheets."""

    BI = "BI"
    BO = "BO"
    CTR = "CTR"
    AI = "AI"
    AO = "AO"

    @property
    def is_input(self) -> bool:
        return self in (Kind.BI, Kind.AI, Kind.CTR)

    @property
    def is_output(self) -> bool:
        return self in (Kind.BO, Kind.AO)

    @property
    def is_binary(self) -> bool:
        return self in (Kind.BI, Kind.BO)

    @property
    def mirror(self) -> Kind | None:
        """The kind of the point that mirrors one of this kind (an output's input and back)."""
        return _MIRROR.get(self)

    @property
    def type_name(self) -> str:
        """The ``type`` the operations API gives an object of this kind."""
        return _TYPE_NAMES[self]

    @property
    def order(self) -> int:
        """Position in listings: the order of the DNP3 object groups (1, 10, 20, 30, 40)."""
        return _ORDER[self]


_MIRROR = {Kind.BI: Kind.BO, Kind.BO: Kind.BI, Kind.AI: Kind.AO, Kind.AO: Kind.AI}
_TYPE_NAMES = {Kind.BI: "bi", Kind.BO: "bo", Kind.CTR: "counter", Kind.AI: "ai", Kind.AO: "ao"}
_ORDER = {kind: i for i, kind in enumerate(Kind)}
KIND_OF_TYPE: dict[str, Kind] = {
    "bi": Kind.BI,
    "bo": Kind.BO,
    "counter": Kind.CTR,
    "frozen": Kind.CTR,
    "ai": Kind.AI,
    "ao": Kind.AO,
}

_ADDRESS = re.compile(r"\s*(BI|BO|AI|AO|CTR)\s*(\d{1,10})\s*", re.I)


@dataclass(frozen=True, slots=True)
class Address:
    """Where a point sits: its kind and index, written ``AO12``."""

    kind: Kind
    index: int

    def __str__(self) -> str:
        return f"{self.kind.value}{self.index}"

    @property
    def sort_key(self) -> tuple[int, int]:
        return (self.kind.order, self.index)

    @classmethod
    def parse(cls, text: str) -> Address | None:
        """The address ``text`` spells (``AO12``, ``bi 107``, any case), or None when it spells
        none or an index beyond 32 bits."""
        match = _ADDRESS.fullmatch(text)
        if match is None:
            return None
        index = int(match.group(2))
        if index > MAX_INDEX:
            return None
        return cls(Kind(match.group(1).upper()), index)


def spelled(type_name: str, index: int) -> str:
    """Where the object of the operations API's ``type_name`` at ``index`` sits, as every
    report, detail and message spells it for a person: its :class:`Address` (``AO12``, a
    counter ``CTR3``), a frozen counter ``CTR3 (frozen)``; a type of no kind the tables list
    as given, ``dbi 4`` (DESIGN D135)."""
    kind = KIND_OF_TYPE.get(type_name)
    if kind is None:
        return f"{type_name} {index}"
    frozen = " (frozen)" if type_name == "frozen" else ""
    return f"{Address(kind, index)}{frozen}"


@dataclass(frozen=True, slots=True)
class Point:
    """One point of the tables.

    ``minimum``/``maximum`` are transmitted (raw) values; ``value`` is a value the tables give
    the point (a fixed or starting value), also as transmitted. ``states`` names a binary
    point's values 0 and 1; ``enumeration`` lists an analog point's values (taken from the
    name by whoever builds the point). ``associated`` is the point that mirrors this one (an
    output's input, an input's output). ``enable`` is the index of the enable output (BO) of
    the DER function the point belongs to. ``block``/``unit`` place a point of an equipment
    block (a meter, an inverter...). ``frozen``/``frozen_event_class`` are a counter's frozen
    counterpart.
    """

    kind: Kind
    index: int
    name: str
    section: str = ""
    purpose: str = ""
    event_class: int | None = None
    mandatory: bool = False
    mandatory_1547: bool = False
    minimum: Number | None = None
    maximum: Number | None = None
    multiplier: float = 1.0
    offset: float = 0.0
    units: str | None = None
    states: tuple[str, str] | None = None
    enumeration: tuple[EnumValue, ...] | None = None
    iec61850: str | None = None
    associated: Address | None = None
    enable: int | None = None
    block: str | None = None
    unit: int | None = None
    frozen: bool = False
    frozen_event_class: int | None = None
    value: Number | bool | None = None

    @property
    def address(self) -> Address:
        return Address(self.kind, self.index)

    def __str__(self) -> str:
        return str(self.address)

    @property
    def label(self) -> str:
        """The name without the values it lists; the name itself when it lists none."""
        return split_name(self.name).label

    @property
    def first_sentence(self) -> str:
        return first_sentence(self.name)

    def to_engineering(self, raw: Number) -> float:
        """The value in the point's units of a transmitted value."""
        return _tidy(raw * self.multiplier + self.offset)

    def to_raw(self, engineering: Number) -> int:
        """The whole number to transmit for a value in the point's units (nearest)."""
        return round((engineering - self.offset) / self.multiplier)

    def in_range(self, raw: Number) -> bool:
        """Whether a transmitted value lies within the point's minimum and maximum."""
        if self.minimum is not None and raw < self.minimum:
            return False
        return self.maximum is None or raw <= self.maximum

    @property
    def engineering_range(self) -> tuple[float | None, float | None]:
        """Minimum and maximum in the point's units (lowest first)."""
        low = None if self.minimum is None else self.to_engineering(self.minimum)
        high = None if self.maximum is None else self.to_engineering(self.maximum)
        if low is not None and high is not None and low > high:
            return high, low
        return low, high

    def state_name(self, value: bool) -> str | None:
        """The name the tables give a binary point's value, if they name it."""
        return None if self.states is None else self.states[int(value)]

    def state_value(self, name: str) -> bool | None:
        """The binary value a state's name means (ignoring case), or None."""
        if self.states is None:
            return None
        wanted = name.strip().casefold()
        matches = [i for i, state in enumerate(self.states) if state.casefold() == wanted]
        return bool(matches[0]) if len(matches) == 1 else None

    def enumeration_name(self, value: int) -> str | None:
        """The name an enumerated point gives ``value``, or None."""
        for item in self.enumeration or ():
            if item.value == value:
                return item.name
        return None


def _tidy(value: float) -> float:
    """Drop the binary noise of a decimal multiplication (240.00000000000003 is 240.0)."""
    return round(value, 9) if math.isfinite(value) else value


def with_name_values(point: Point) -> Point:
    """The point with the values its name lists, where it does not give them already: an
    analog point's enumeration, a binary point's state names (from values 0 and 1)."""
    listed = split_name(point.name).enumeration
    if listed is None:
        return point
    if point.kind.is_binary:
        names = {item.value: item.name for item in listed}
        if point.states is None and set(names) == {0, 1}:
            return dataclasses.replace(point, states=(names[0], names[1]))
        return point
    if point.enumeration is None:
        return dataclasses.replace(point, enumeration=listed)
    return point
