"""What der.describe observed, and the Device Profile document written of it.

Every value in the document is observed, and marked so (DESIGN, "A Device Profile drawn
from the outstation"): the header says so (the document's description and the revision's
reason), each point's ``description`` says which read returned it, in which variation, and
in which event class its event came; the point entries are written with
``PointEntry.observed``, so nothing the device would declare of its own points and gridwire
cannot see (command event class, control operations, state names, scaling, roll-over) is
written; an event class not seen is left out rather than written ``none``, and so are the
unsolicited setting and, without the device attribute, the fragment size. What the device
attributes give (vendor, product, versions, fragment size) fills the configuration;
without them the configuration says the outstation did not report it. The link addresses
and the TCP port are those the master reached the outstation at.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from gridwire import __version__
from gridwire.derops.ranges import POINT_TYPES
from gridwire.devprofile.writer import DeviceFacts, PointEntry, write_device_profile
from gridwire.dnp3.app.fragments import Request, parse_request
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.records import DnpObject
from gridwire.dnp3.objects.table import lookup
from gridwire.master.attributes import AttributesResult
from gridwire.master.records import Exchange
from gridwire.master.settings import OutstationSettings
from gridwire.outstation.implementation import Supported

Key = tuple[str, int]
NOT_REPORTED = "not reported by the outstation"
REFUSALS = frozenset({"FUNC_NOT_SUPPORTED", "OBJECT_UNKNOWN", "PARAMETER_ERROR"})
RESPONSE = int(FunctionCode.RESPONSE)
LABELS = {
    "bi": "Binary input",
    "dbi": "Double-bit input",
    "bo": "Binary output",
    "counter": "Counter",
    "frozen": "Frozen counter",
    "ai": "Analog input",
    "ao": "Analog output",
    "octet_string": "Octet string",
    "time_and_interval": "Time and interval",
}
COUNTED = tuple(LABELS)


@dataclass(slots=True)
class Observed:
    """What the reads found (filled in by :func:`gridwire.derops.describe.der_describe`)."""

    outstation: str
    settings: OutstationSettings
    exchanges: list[Exchange] = field(default_factory=list)
    served: dict[Key, DnpObject] = field(default_factory=dict)
    carried: set[Key] = field(default_factory=set)
    event_class: dict[Key, int] = field(default_factory=dict)
    events: dict[Key, DnpObject] = field(default_factory=dict)
    attributes: AttributesResult | None = None
    name_of: Callable[[str, int], str | None] | None = None

    def add_events(self, number: int, objects: Iterable[DnpObject]) -> None:
        for obj in objects:
            if obj.event and obj.index is not None and obj.type in POINT_TYPES:
                key = (obj.type, obj.index)
                self.event_class.setdefault(key, number)
                self.events.setdefault(key, obj)

    def name(self, type: str, index: int) -> str:
        named = self.name_of(type, index) if self.name_of is not None else None
        return named or f"{LABELS[type]} {index}"

    def counts(self) -> dict[str, int]:
        found = Counter(type for type, _ in self.served)
        return {type: found[type] for type in COUNTED if found[type]}

    def points(self) -> list[tuple[str, int, str, bool, int, int | None, int | None]]:
        order = {t: i for i, t in enumerate(POINT_TYPES)}
        keys = sorted((k for k in self.served if k[0] in order), key=lambda k: (order[k[0]], k[1]))
        return [
            (
                *key,
                self.name(*key),
                key in self.carried,
                self.served[key].variation,
                self.event_class.get(key),
                self.event_variation(key),
            )
            for key in keys
        ]

    def event_variation(self, key: Key) -> int | None:
        event = self.events.get(key)
        return None if event is None else event.variation

    def accepted(self) -> list[Exchange]:
        """The exchanges whose request the outstation answered without refusing it."""
        return [
            e
            for e in self.exchanges
            if (e.outcome == "complete" or e.fragments > 0) and not REFUSALS & set(e.indications)
        ]

    def function_codes(self) -> list[int]:
        return sorted({int(r.function) for r in _requests(self.accepted())})

    def variations(self) -> list[tuple[int, int]]:
        return sorted({(o.group, o.variation) for e in self.exchanges for o in e.objects})


def _requests(exchanges: Iterable[Exchange]) -> Iterator[Request]:
    for exchange in exchanges:
        try:
            yield parse_request(bytes.fromhex(exchange.request))
        except (DecodeError, ValueError):
            continue


def implementation(seen: Observed) -> list[Supported]:
    """Rows of the implementation table: objects accepted in requests, with the function and
    qualifier codes they were sent in; objects answered in responses."""
    requests: dict[tuple[int, int], dict[int, set[int]]] = {}
    for request in _requests(seen.accepted()):
        for header in request.headers:
            codes = requests.setdefault((header.group, header.variation), {})
            codes.setdefault(int(request.function), set()).add(header.qualifier)
    answered = set(seen.variations())
    rows = []
    for group, variation in sorted(set(requests) | answered):
        declared = lookup(group, variation)
        rows.append(
            Supported(
                group,
                variation,
                declared.name if declared is not None else f"group {group}, any variation",
                {f: sorted(q) for f, q in sorted(requests.get((group, variation), {}).items())},
                {RESPONSE: []} if (group, variation) in answered else {},
            )
        )
    return rows


def _description(seen: Observed, key: Key) -> str:
    obj = seen.served[key]
    where = "the class 0 read" if key in seen.carried else "a read outside class 0"
    text = f"Observed by gridwire: served in {where} as g{obj.group}v{obj.variation}"
    if key in seen.event_class:
        event = seen.events[key]
        return (
            f"{text}; an event in class {seen.event_class[key]} as g{event.group}v{event.variation}"
        )
    return f"{text}; no event seen in a class 1, 2 or 3 read"


def _entry(seen: Observed, type: str, index: int) -> PointEntry:
    key = (type, index)
    frozen = ("frozen", index)
    has_frozen = type == "counter" and frozen in seen.served
    return PointEntry(
        type=type,
        index=index,
        name=seen.name(type, index),
        description=_description(seen, key),
        event_class=seen.event_class.get(key),
        class_0=key in seen.carried,
        static_variation=seen.served[key].variation,
        event_variation=seen.event_variation(key),
        frozen=has_frozen,
        frozen_event_class=seen.event_class.get(frozen) if has_frozen else None,
        frozen_static_variation=seen.served[frozen].variation if has_frozen else None,
        frozen_event_variation=seen.event_variation(frozen) if has_frozen else None,
        observed=True,
    )


def _attribute(seen: Observed, *keys: str) -> str:
    given = seen.attributes.by_key() if seen.attributes is not None else {}
    for key in keys:
        value = given.get(key)
        if value not in (None, ""):
            return str(value)
    return NOT_REPORTED


def _facts(seen: Observed) -> DeviceFacts:
    settings = seen.settings
    fragment = seen.attributes.by_key().get("max_transmit_fragment") if seen.attributes else None
    device = _attribute(seen, "product_name", "device_name")
    today = dt.datetime.now(dt.UTC).date().isoformat()
    named = device if device != NOT_REPORTED else seen.outstation
    return DeviceFacts(
        document_name=f"{named}: observed by gridwire",
        description=f"What outstation {seen.outstation} ({settings.host}:{settings.port}, link "
        f"address {settings.outstation_address}) served on {today}, observed by gridwire "
        f"{__version__} (der.describe): its points, variations, event classes and device "
        "attributes as read, not as the device declares them",
        vendor=_attribute(seen, "vendor_name"),
        device=device,
        software_version=_attribute(seen, "software_version"),
        hardware_version=_attribute(seen, "hardware_version"),
        outstation_address=settings.outstation_address,
        master_address=settings.master_address,
        tcp_port=settings.port,
        unsolicited=None,
        max_fragment=fragment if isinstance(fragment, int) else None,
        author=f"gridwire {__version__} (der.describe)",
        date=today,
        reason="Observed by gridwire der.describe: what the outstation served, not what it "
        "declares",
    )


def describe_document(seen: Observed) -> bytes:
    """The Device Profile document of what ``seen`` holds."""
    entries = [
        _entry(seen, type, index)
        for type, index in seen.served
        if type in POINT_TYPES and type != "frozen"
    ]
    return write_device_profile(_facts(seen), implementation(seen), entries)
