"""The device attributes an outstation gives (group 0): one READ of g0v254 (all attributes)
with qualifier 0x06 (every attribute set), each attribute answered by the standard's name.

Values are typed by the data type code of each object: VSTR as text, UINT and INT as whole
numbers, FLT as a number, OSTR and BSTR as hex text, TIME as milliseconds since the epoch
(``text`` gives it in ISO 8601), LIST and EXTLIST as the variations listed. An outstation
that refuses the read (OBJECT_UNKNOWN: it has no group 0), answers nothing or answers with
some objects undecoded is answered all the same, with what it gave: ``answered`` says
whether any attribute came back, ``indications`` and the exchange say the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from gridwire.dnp3.app.headers import all_header
from gridwire.dnp3.objects.attributes import ALL_ATTRIBUTES, attribute_key, attribute_name
from gridwire.dnp3.objects.records import Attribute, AttributeEntry, DnpObject
from gridwire.master.records import Exchange

if TYPE_CHECKING:
    from gridwire.master.master import Master

AttributeValue = str | int | float | list[int] | None

REQUEST_BODY = all_header(0, ALL_ATTRIBUTES)
"""The READ's object header: 00 FE 06."""


@dataclass(slots=True)
class DeviceAttribute:
    """One attribute: ``set`` (the point index), ``variation``, ``key`` and ``name`` (the
    standard's, for set 0), ``data_type`` (VSTR, UINT, INT, FLT, OSTR, BSTR, TIME, LIST,
    EXTLIST), ``value`` typed as the module says, ``text`` as a person reads it."""

    set: int
    variation: int
    key: str
    name: str
    data_type: str
    value: AttributeValue
    text: str


@dataclass(slots=True)
class AttributesResult:
    """``attributes``: what the outstation gave, in the order it gave it."""

    outstation: str
    answered: bool
    attributes: list[DeviceAttribute] = field(default_factory=list)
    indications: list[str] = field(default_factory=list)
    exchange: Exchange | None = None

    def by_key(self) -> dict[str, AttributeValue]:
        """The attributes of set 0 by key (the report's header shows these)."""
        return {a.key: a.value for a in self.attributes if a.set == 0}


def _time_text(ms: int) -> str:
    try:
        moment = datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def typed(attribute: Attribute) -> tuple[AttributeValue, str]:
    """The JSON value and the text of a decoded attribute."""
    kind, value = attribute.data_type, attribute.value
    if isinstance(value, bytes):
        return value.hex(), value.hex(" ").upper() or "(empty)"
    if isinstance(value, list):
        entries = [e.variation for e in value if isinstance(e, AttributeEntry)]
        return entries, ", ".join(attribute_name(v) for v in entries)
    if kind == "TIME" and isinstance(value, int):
        return value, _time_text(value)
    if isinstance(value, float):
        return value, f"{value:g}"
    return value, str(value)


def device_attribute(obj: DnpObject) -> DeviceAttribute | None:
    """The attribute a decoded g0 object carries (None for any other object)."""
    if obj.group != 0 or not isinstance(obj.value, Attribute):
        return None
    attribute_set = obj.index or 0
    value, text = typed(obj.value)
    return DeviceAttribute(
        set=attribute_set,
        variation=obj.variation,
        key=attribute_key(obj.variation, attribute_set),
        name=attribute_name(obj.variation, attribute_set),
        data_type=obj.value.data_type,
        value=value,
        text=text,
    )


def attributes_of(outstation: str, exchange: Exchange) -> AttributesResult:
    found = [a for a in map(device_attribute, exchange.objects) if a is not None]
    return AttributesResult(
        outstation=outstation,
        answered=bool(found),
        attributes=found,
        indications=list(exchange.indications),
        exchange=exchange,
    )


async def read_attributes(master: Master, outstation: str) -> AttributesResult:
    """READ g0v254 qualifier 0x06, answered by name (see the module's notes)."""
    exchange = await master.request(outstation, "READ", REQUEST_BODY)
    return attributes_of(outstation, exchange)
