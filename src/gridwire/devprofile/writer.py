"""Writing a Device Profile document (schema 2.12.00) for a device of our own: a header, the
configuration that identifies it and says how it is reached, its implementation table, and
every point it serves with name, event class, class 0 inclusion, variations, deadband,
range and scale.

Element names and their order follow the DNP3 Device Profile documents of the earlier
editions (as the published opendnp3 Device Profile documents show them); the namespace is
that of schema 2.12.00. What the writer is given is plain data (:class:`DeviceFacts`,
:class:`PointEntry` and entries of the implementation table), so it serves any device.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from lxml import etree

from gridwire.devprofile.codes import CLASS_WORD_OF

SCHEMA_VERSION: Final = "2.12.00"
NAMESPACE: Final = "http://www.dnp.org/DNP3/DeviceProfile"

_WORDS: Final = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"
)  # fmt: skip
_LISTS: Final[dict[str, tuple[str, str]]] = {
    # point type -> (list element, entry element)
    "bi": ("binaryInputPoints", "binaryInput"),
    "dbi": ("doubleBitInputPoints", "doubleBitInput"),
    "bo": ("binaryOutputPoints", "binaryOutput"),
    "counter": ("counterPoints", "counter"),
    "ai": ("analogInputPoints", "analogInput"),
    "ao": ("analogOutputPoints", "analogOutput"),
}
BINARY_OPERATIONS: Final = (
    "supportSelectOperate",
    "supportDirectOperate",
    "supportDirectOperateNoAck",
    "supportPulseOn",
    "supportPulseOff",
    "supportLatchOn",
    "supportLatchOff",
    "supportTrip",
    "supportClose",
)
ANALOG_OPERATIONS: Final = BINARY_OPERATIONS[:3]


class ImplementationEntry(Protocol):
    """One row of the implementation table: an object (``group`` None for a function code
    that takes no object), the requests it is parsed in (function code -> qualifier codes)
    and the responses it is sent in."""

    @property
    def group(self) -> int | None: ...
    @property
    def variation(self) -> int: ...
    @property
    def description(self) -> str: ...
    @property
    def requests(self) -> Mapping[int, Sequence[int]]: ...
    @property
    def responses(self) -> Mapping[int, Sequence[int]]: ...


@dataclass(frozen=True, slots=True)
class DeviceFacts:
    """What identifies the device and how it is reached."""

    document_name: str
    description: str
    vendor: str
    device: str
    software_version: str
    hardware_version: str = "N/A"
    outstation_address: int = 1024
    master_address: int = 1
    tcp_port: int | None = None
    unsolicited: bool | None = False
    max_fragment: int | None = 2048
    author: str = ""
    date: str = field(default_factory=lambda: dt.date.today().isoformat())
    reason: str = "Written by the device for the points it serves"
    """The revision's reason; None for ``unsolicited`` or ``max_fragment``: not stated."""


@dataclass(frozen=True, slots=True)
class PointEntry:
    """A point as the document declares it. ``type`` is bi, dbi, bo, counter, ai or ao;
    ``event_class`` 0-3; ``minimum``/``maximum`` and ``deadband`` are transmitted values;
    ``scale``/``offset`` make the engineering value (transmitted x scale + offset); a
    counter's ``frozen`` counterpart is declared with it. ``event_class`` None: not stated.
    ``observed`` (a point seen served, not declared by its device): only what was given is
    written, not the command event class, control operations, state names, scaling or
    roll-over a device declares of its own points."""

    type: str
    index: int
    name: str
    description: str = ""
    event_class: int | None = 0
    class_0: bool = True
    static_variation: int | None = None
    event_variation: int | None = None
    states: tuple[str, str] | None = None
    minimum: float | None = None
    maximum: float | None = None
    scale: float = 1.0
    offset: float = 0.0
    units: str | None = None
    deadband: float | None = None
    frozen: bool = False
    frozen_event_class: int | None = 0
    frozen_static_variation: int | None = None
    frozen_event_variation: int | None = None
    observed: bool = False


def _word(number: int) -> str:
    return _WORDS[number] if 0 <= number < len(_WORDS) else str(number)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class _Writer:
    def __init__(self) -> None:
        self.root = etree.Element(
            f"{{{NAMESPACE}}}DNP3DeviceProfileDocument",
            nsmap={None: NAMESPACE},  # type: ignore[dict-item]  # lxml takes None: the default namespace
            schemaVersion=SCHEMA_VERSION,
        )

    @staticmethod
    def sub(parent: etree._Element, name: str, text: str | None = None) -> etree._Element:
        element = etree.SubElement(parent, f"{{{NAMESPACE}}}{name}")
        if text is not None:
            element.text = text
        return element

    def choice(self, parent: etree._Element, name: str, *chosen: str) -> etree._Element:
        element = self.sub(parent, name)
        for option in chosen:
            self.sub(element, option)
        return element

    def setting(
        self,
        parent: etree._Element,
        name: str,
        *,
        value: str | None = None,
        chosen: Sequence[str] = (),
        capabilities: Sequence[str] | None = None,
        range_: tuple[int, int] | None = None,
    ) -> None:
        element = self.sub(parent, name)
        if capabilities is not None or range_ is not None:
            caps = self.sub(element, "capabilities")
            for option in capabilities or ():
                self.sub(caps, option)
            if range_ is not None:
                span = self.sub(caps, "range")
                self.sub(span, "minimum", str(range_[0]))
                self.sub(span, "maximum", str(range_[1]))
        current = self.sub(element, "currentValue")
        if value is not None:
            self.sub(current, "value", value)
        for option in chosen:
            self.sub(current, option)


def _header(w: _Writer, facts: DeviceFacts) -> None:
    header = w.sub(w.root, "documentHeader")
    w.sub(header, "documentName", facts.document_name)
    w.sub(header, "documentDescription", facts.description)
    history = w.sub(header, "revisionHistory")
    history.set("version", "1")
    w.sub(history, "date", facts.date)
    w.sub(history, "author", facts.author or facts.vendor)
    w.sub(history, "reason", facts.reason)


def _configuration(w: _Writer, device: etree._Element, facts: DeviceFacts) -> None:
    configuration = w.sub(device, "configuration")
    config = w.sub(configuration, "deviceConfig")
    w.setting(config, "deviceFunction", chosen=["outstation"], capabilities=["outstation"])
    w.setting(config, "vendorName", value=facts.vendor)
    w.setting(config, "deviceName", value=facts.device)
    w.setting(config, "hardwareVersion", value=facts.hardware_version)
    w.setting(config, "softwareVersion", value=facts.software_version)
    w.setting(config, "documentVersionNumber", value="1")
    w.setting(config, "connectionsSupported", chosen=["network"], capabilities=["network"])
    network = w.sub(configuration, "networkConfig")
    w.setting(network, "typeOfEndPoint", chosen=["tcpListening"], capabilities=["tcpListening"])
    if facts.tcp_port is not None:
        w.setting(network, "tcpListenPort", value=str(facts.tcp_port), range_=(0, 65535))
    link = w.sub(configuration, "linkConfig")
    w.setting(link, "dataLinkAddress", value=str(facts.outstation_address), range_=(0, 65519))
    application = w.sub(configuration, "applConfig")
    if facts.max_fragment is not None:
        w.setting(
            application,
            "maxTransmittedFragmentSize",
            value=str(facts.max_fragment),
            range_=(249, 65535),
        )
    unsolicited = w.sub(configuration, "unsolicitedConfig")
    if facts.unsolicited is not None:
        w.setting(
            unsolicited,
            "supportsUnsolicitedReporting",
            chosen=["on" if facts.unsolicited else "off"],
            capabilities=["configurable"],
        )
    w.setting(
        unsolicited, "masterDataLinkAddress", value=str(facts.master_address), range_=(0, 65519)
    )


def _codes(
    w: _Writer, parent: etree._Element, name: str, codes: Mapping[int, Sequence[int]]
) -> None:
    for function, qualifiers in codes.items():
        element = w.sub(parent, name)
        w.sub(element, "functionCode", str(function))
        for qualifier in qualifiers:
            w.sub(element, "qualifierCode", str(qualifier))


def _implementation(
    w: _Writer, device: etree._Element, entries: Iterable[ImplementationEntry]
) -> None:
    table = w.sub(w.sub(device, "implementationTable"), "table")
    for entry in entries:
        if entry.group is None:
            row = w.sub(table, "supportedFunctionCode")
        else:
            row = w.sub(table, "supportedVariation")
            w.sub(row, "objectGroup", str(entry.group))
            w.sub(row, "variation", str(entry.variation))
            w.sub(row, "description", entry.description)
        _codes(w, row, "request", entry.requests)
        _codes(w, row, "response", entry.responses)


def _class(w: _Writer, entry: etree._Element, name: str, number: int | None) -> None:
    if number is not None:
        w.sub(entry, name, CLASS_WORD_OF.get(number, "none"))


def _common(w: _Writer, entry: etree._Element, point: PointEntry) -> None:
    w.sub(entry, "index", str(point.index))
    w.sub(entry, "name", point.name)
    w.sub(entry, "description", point.description)


def _variation(w: _Writer, entry: etree._Element, name: str, variation: int | None) -> None:
    if variation is not None:
        w.choice(entry, name, _word(variation))


def _scaling(w: _Writer, entry: etree._Element, point: PointEntry, integer: bool) -> None:
    low, high = ("minIntegerTransmittedValue", "maxIntegerTransmittedValue")
    if not integer:
        low, high = ("minTransmittedValue", "maxTransmittedValue")
    if point.minimum is not None:
        w.sub(entry, low, _number(point.minimum))
    if point.maximum is not None:
        w.sub(entry, high, _number(point.maximum))
    if not point.observed:
        w.sub(entry, "scaleOffset", _number(point.offset))
        w.sub(entry, "scaleFactor", _number(point.scale))
        w.sub(entry, "resolution", _number(point.scale))
    if point.units:
        w.sub(entry, "units", point.units)


def _point(w: _Writer, parent: etree._Element, point: PointEntry) -> None:
    entry = w.sub(parent, _LISTS[point.type][1])
    _common(w, entry, point)
    included = "always" if point.class_0 else "never"
    if point.type == "counter":
        _variation(w, entry, "defaultCounterStaticVariation", point.static_variation)
        _variation(w, entry, "defaultCounterEventVariation", point.event_variation)
        w.sub(entry, "countersIncludedInClass0", included)
        _class(w, entry, "counterEventClass", point.event_class)
        w.sub(entry, "frozenCounterExists", "true" if point.frozen else "false")
        if point.frozen:
            _variation(
                w, entry, "defaultFrozenCounterStaticVariation", point.frozen_static_variation
            )
            _variation(w, entry, "defaultFrozenCounterEventVariation", point.frozen_event_variation)
            w.sub(entry, "frozenCountersIncludedInClass0", included)
            _class(w, entry, "frozenCounterEventClass", point.frozen_event_class)
        if not point.observed:
            w.sub(entry, "counterRollOver", str(0xFFFFFFFF))
        return
    output = point.type in ("bo", "ao")
    _class(w, entry, "changeEventClass", point.event_class)
    if output and not point.observed:
        w.sub(entry, "commandEventClass", "none")
    w.sub(entry, "includedInClass0Response", included)
    _variation(w, entry, "defaultStaticVariation", point.static_variation)
    event = "defaultChangeEventVariation" if output else "defaultEventVariation"
    _variation(w, entry, event, point.event_variation)
    if output and not point.observed:
        operations = BINARY_OPERATIONS if point.type == "bo" else ANALOG_OPERATIONS
        w.choice(entry, "supportedControlOperations", *operations)
    if point.type in ("bi", "bo") and (point.states is not None or not point.observed):
        states = point.states or ("", "")
        w.sub(entry, "nameState0", states[0])
        w.sub(entry, "nameState1", states[1])
    if point.type in ("ai", "ao"):
        _scaling(w, entry, point, integer=point.type == "ai")
    if point.deadband is not None:
        w.sub(w.sub(entry, "dnpData"), "deadband", _number(point.deadband))


def write_device_profile(
    facts: DeviceFacts,
    implementation: Iterable[ImplementationEntry],
    points: Iterable[PointEntry],
) -> bytes:
    """The document, as UTF-8 octets with an XML declaration."""
    w = _Writer()
    _header(w, facts)
    device = w.sub(w.root, "referenceDevice")
    _configuration(w, device, facts)
    _implementation(w, device, implementation)
    lists = w.sub(device, "dataPointsList")
    by_type: dict[str, list[PointEntry]] = {t: [] for t in _LISTS}
    for point in points:
        if point.type not in by_type:
            raise ValueError(f"a Device Profile lists no {point.type!r} points")
        by_type[point.type].append(point)
    for type, (list_name, _entry) in _LISTS.items():
        if not by_type[type]:
            continue
        data_points = w.sub(w.sub(lists, list_name), "dataPoints")
        for point in sorted(by_type[type], key=lambda p: p.index):
            _point(w, data_points, point)
    return bytes(etree.tostring(w.root, xml_declaration=True, encoding="UTF-8", pretty_print=True))
