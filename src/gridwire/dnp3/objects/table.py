"""The object library: every group and variation gridwire reads and writes, declared as data.

One row per variation says its name, the point type it reports, whether it is an event, and
its layout: fixed-size fields (:mod:`.fields`), or a special layout (packed bits, device
attributes, free-format file objects, no data). :mod:`.codec` compiles the rows into decoders
and encoders; nothing else knows a variation's octets.

Layouts follow IEEE 1815-2012's object definitions (Annex A), checked against Wireshark's
dissector and opendnp3's object models. Octet strings (g110-g113, variation = length) and
device attributes (g0, variation = attribute) are generated on demand by :func:`lookup`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

from gridwire.dnp3.objects import records
from gridwire.dnp3.objects.attributes import attribute_name
from gridwire.dnp3.objects.fields import (
    Field,
    binary_flags,
    constant,
    double_bit_flags,
    flags,
    number,
    octets,
    part,
    relative_time,
    single,
    time48,
)


class Layout(Enum):
    FIXED = "fixed"  # fields of fixed size (struct formats)
    PACKED = "packed"  # 1 or 2 bits per object, packed LSB first
    ATTRIBUTE = "attribute"  # g0: data type, length, value
    FREE = "free"  # g70: free format, each object prefixed by its size
    NONE = "none"  # no object data (class objects g60)


@dataclass(frozen=True, slots=True)
class FreeFormat:
    """A free-format object (g70): fixed fields, then the strings their offsets name.

    Each entry is ``(attribute, kind)``: ``B H I`` unsigned integers, ``T`` a 48-bit time,
    ``S`` a string named by an offset (u16) and size (u16) in the fixed part, ``K`` a block
    number whose bit 31 is the ``last`` flag, ``F`` a file status by name, ``R`` the rest of
    the object as text, ``D`` the rest as octets. Attributes are the record's, in its order.
    """

    record: type[Any]
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Variation:
    group: int
    variation: int
    name: str
    point_type: str | None  # DnpObject.type: "bi", "ai"...; None for what is not a point's value
    event: bool
    layout: Layout
    fields: tuple[Field, ...] = ()
    record: type[Any] | None = None  # composite value record built from the ``part:`` roles
    bits: int = 0  # packed layouts: bits per object
    indexed: bool = True  # objects belong to points (False: times, CTO, delays)
    prefixed: bool = False  # by default sent index-prefixed (events and commands)
    synchronized: bool | None = None  # what a CTO says of the times relative to it
    free: FreeFormat | None = None

    @property
    def key(self) -> int:
        return self.group << 8 | self.variation

    @property
    def carries_flags(self) -> bool:
        return any(role == "flags" for f in self.fields for role, _ in f.reads)

    @property
    def size(self) -> int:
        """Octets of one object of a fixed layout."""
        return sum(f.size for f in self.fields)


def _fixed(
    group: int,
    variation: int,
    name: str,
    type_: str | None,
    *fields: Field,
    event: bool = False,
    record: type[Any] | None = None,
    indexed: bool = True,
    prefixed: bool | None = None,
    synchronized: bool | None = None,
) -> Variation:
    return Variation(
        group,
        variation,
        name,
        type_,
        event,
        Layout.FIXED,
        fields,
        record,
        indexed=indexed,
        prefixed=event if prefixed is None else prefixed,
        synchronized=synchronized,
    )


def _packed(group: int, variation: int, name: str, type_: str | None, bits: int) -> Variation:
    return Variation(group, variation, name, type_, False, Layout.PACKED, bits=bits)


def _none(group: int, variation: int, name: str) -> Variation:
    return Variation(group, variation, name, None, False, Layout.NONE)


def _free(variation: int, name: str, record: type[Any], *fields: tuple[str, str]) -> Variation:
    return Variation(70, variation, name, None, False, Layout.FREE, free=FreeFormat(record, fields))


BF, DF, FL = binary_flags(), double_bit_flags(), flags()
T, RT = time48("time"), relative_time()
U16, U32, I16, I32, F32, F64 = (
    number("H"),
    number("I"),
    number("h"),
    number("i"),
    single(),
    number("d"),
)
STATUS = part("status", "B", "ST[{0}]", "SC(v.status)")
CROB = (
    Field("B", (("part:code", "{0}"), ("part:op", "OPN[{0}]")), "B", "v.code"),
    part("count", "B"),
    part("on_ms", "I"),
    part("off_ms", "I"),
    STATUS,
)
COMMAND_EVENT = Field(
    "B",
    (("part:state", "{0} > 127"), ("part:status", "ST[{0}]")),
    "B",
    "(0x80 if v.state else 0) | SC(v.status)",
)


def _ao_value(code: str) -> Field:
    return single("part:value", "v.value") if code == "f" else number(code, "part:value", "v.value")


def _analogs(group: int, kind: str, type_: str, event: bool) -> list[Variation]:
    """Analog families share their layouts: g30/g31/g32/g33/g40/g42."""
    layouts: dict[str, list[tuple[str, tuple[Field, ...]]]] = {
        "static": [
            ("32-bit with flag", (FL, I32)),
            ("16-bit with flag", (FL, I16)),
            ("32-bit without flag", (I32,)),
            ("16-bit without flag", (I16,)),
            ("single-precision with flag", (FL, F32)),
            ("double-precision with flag", (FL, F64)),
        ],
        "frozen": [
            ("32-bit with flag", (FL, I32)),
            ("16-bit with flag", (FL, I16)),
            ("32-bit with time-of-freeze", (FL, I32, T)),
            ("16-bit with time-of-freeze", (FL, I16, T)),
            ("32-bit without flag", (I32,)),
            ("16-bit without flag", (I16,)),
            ("single-precision with flag", (FL, F32)),
            ("double-precision with flag", (FL, F64)),
        ],
        "event": [
            ("32-bit without time", (FL, I32)),
            ("16-bit without time", (FL, I16)),
            ("32-bit with time", (FL, I32, T)),
            ("16-bit with time", (FL, I16, T)),
            ("single-precision without time", (FL, F32)),
            ("double-precision without time", (FL, F64)),
            ("single-precision with time", (FL, F32, T)),
            ("double-precision with time", (FL, F64, T)),
        ],
        "output": [
            ("32-bit with flag", (FL, I32)),
            ("16-bit with flag", (FL, I16)),
            ("single-precision with flag", (FL, F32)),
            ("double-precision with flag", (FL, F64)),
        ],
    }
    return [
        _fixed(group, v, name, type_, *fields, event=event)
        for v, (name, fields) in enumerate(layouts[kind], start=1)
    ]


def _counters(group: int, type_: str, event: bool, variations: dict[int, str]) -> list[Variation]:
    shapes: dict[int, tuple[Field, ...]] = {
        1: (FL, U32),
        2: (FL, U16),
        5: (FL, U32, T) if type_ == "frozen" or event else (U32,),
        6: (FL, U16, T) if type_ == "frozen" or event else (U16,),
        9: (U32,),
        10: (U16,),
    }
    return [
        _fixed(group, v, name, type_, *shapes[v], event=event) for v, name in variations.items()
    ]


_WITH_FLAG = {1: "32-bit with flag", 2: "16-bit with flag"}
_NO_FLAG = {5: "32-bit without flag", 6: "16-bit without flag"}
_TIMED = {5: "32-bit with flag and time", 6: "16-bit with flag and time"}
_ANALOG_COMMANDS = [("32-bit", "i"), ("16-bit", "h"), ("single-precision", "f"), ("double", "d")]
_COMMAND_EVENTS = [
    ("32-bit", "i", False),
    ("16-bit", "h", False),
    ("32-bit with time", "i", True),
    ("16-bit with time", "h", True),
    ("single-precision", "f", False),
    ("double-precision", "d", False),
    ("single-precision with time", "f", True),
    ("double-precision with time", "d", True),
]
_UNITS = "UN[{0}]"


VARIATIONS: list[Variation] = [
    # Binary inputs (state in bit 7 of the flags, or packed one bit each)
    _packed(1, 1, "binary input packed format", "bi", 1),
    _fixed(1, 2, "binary input with flags", "bi", BF),
    _fixed(2, 1, "binary input event without time", "bi", BF, event=True),
    _fixed(2, 2, "binary input event with absolute time", "bi", BF, T, event=True),
    _fixed(2, 3, "binary input event with relative time", "bi", BF, RT, event=True),
    # Double-bit binary inputs (state in bits 6-7, or packed two bits each)
    _packed(3, 1, "double-bit binary input packed format", "dbi", 2),
    _fixed(3, 2, "double-bit binary input with flags", "dbi", DF),
    _fixed(4, 1, "double-bit binary input event without time", "dbi", DF, event=True),
    _fixed(4, 2, "double-bit binary input event with absolute time", "dbi", DF, T, event=True),
    _fixed(4, 3, "double-bit binary input event with relative time", "dbi", DF, RT, event=True),
    # Binary outputs and their commands
    _packed(10, 1, "binary output packed format", "bo", 1),
    _fixed(10, 2, "binary output status with flags", "bo", BF),
    _fixed(11, 1, "binary output event status without time", "bo", BF, event=True),
    _fixed(11, 2, "binary output event status with time", "bo", BF, T, event=True),
    _fixed(12, 1, "control relay output block", None, *CROB, record=records.Crob, prefixed=True),
    _fixed(12, 2, "pattern control block", None, *CROB, record=records.Crob, prefixed=True),
    _packed(12, 3, "pattern mask", None, 1),
    _fixed(
        13,
        1,
        "binary output command event without time",
        None,
        COMMAND_EVENT,
        event=True,
        record=records.CommandEvent,
    ),
    _fixed(
        13,
        2,
        "binary output command event with time",
        None,
        COMMAND_EVENT,
        T,
        event=True,
        record=records.CommandEvent,
    ),
    # Counters, frozen counters and their events
    *_counters(20, "counter", False, {**_WITH_FLAG, **_NO_FLAG}),
    *_counters(
        21,
        "frozen",
        False,
        {
            **_WITH_FLAG,
            5: "32-bit with flag and time",
            6: "16-bit with flag and time",
            9: "32-bit without flag",
            10: "16-bit without flag",
        },
    ),
    *_counters(22, "counter", True, {**_WITH_FLAG, **_TIMED}),
    *_counters(23, "frozen", True, {**_WITH_FLAG, **_TIMED}),
    # Analog inputs, frozen analog inputs, their events, deadbands
    *_analogs(30, "static", "ai", False),
    *_analogs(31, "frozen", "frozen_ai", False),
    *_analogs(32, "event", "ai", True),
    *_analogs(33, "event", "frozen_ai", True),
    _fixed(34, 1, "analog input deadband 16-bit", None, U16),
    _fixed(34, 2, "analog input deadband 32-bit", None, U32),
    _fixed(34, 3, "analog input deadband single-precision", None, F32),
    # Analog outputs: status, commands, events, command events
    *_analogs(40, "output", "ao", False),
    *[
        _fixed(
            41,
            v,
            f"analog output {name}",
            None,
            _ao_value(code),
            STATUS,
            record=records.AnalogCommand,
            prefixed=True,
        )
        for v, (name, code) in enumerate(_ANALOG_COMMANDS, start=1)
    ],
    *_analogs(42, "event", "ao", True),
    *[
        _fixed(
            43,
            v,
            f"analog output command event {name}",
            None,
            STATUS,
            _ao_value(code),
            *((T,) if timed else ()),
            event=True,
            record=records.AnalogCommand,
        )
        for v, (name, code, timed) in enumerate(_COMMAND_EVENTS, start=1)
    ],
    # Times and delays
    _fixed(50, 1, "absolute time", None, time48("time", "value", source="v"), indexed=False),
    _fixed(
        50,
        2,
        "absolute time and interval",
        None,
        time48("time", "part:time_ms", source="v.time_ms"),
        part("interval", "I"),
        constant("units", "'MILLISECONDS'"),
        record=records.TimeAndInterval,
        indexed=False,
    ),
    _fixed(
        50,
        3,
        "absolute time at last recorded time",
        None,
        time48("time", "value", source="v"),
        indexed=False,
    ),
    _fixed(
        50,
        4,
        "indexed absolute time and long interval",
        None,
        time48("time", "part:time_ms", source="v.time_ms"),
        part("interval", "I"),
        part("units", "B", _UNITS, "UNC(v.units)"),
        record=records.TimeAndInterval,
    ),
    _fixed(
        51,
        1,
        "common time-of-occurrence, synchronized",
        None,
        time48("time", "value", source="v"),
        indexed=False,
        synchronized=True,
    ),
    _fixed(
        51,
        2,
        "common time-of-occurrence, unsynchronized",
        None,
        time48("time", "value", source="v"),
        indexed=False,
        synchronized=False,
    ),
    _fixed(52, 1, "time delay coarse (s)", None, U16, indexed=False),
    _fixed(52, 2, "time delay fine (ms)", None, U16, indexed=False),
    # Class objects
    _none(60, 1, "class 0 data"),
    _none(60, 2, "class 1 data"),
    _none(60, 3, "class 2 data"),
    _none(60, 4, "class 3 data"),
    # File control (free format, qualifier 0x5B)
    _free(
        2,
        "authentication",
        records.FileAuthentication,
        ("user_name", "S"),
        ("password", "S"),
        ("auth_key", "I"),
    ),
    _free(
        3,
        "file command",
        records.FileCommand,
        ("file_name", "S"),
        ("created_ms", "T"),
        ("permissions", "H"),
        ("auth_key", "I"),
        ("file_size", "I"),
        ("mode", "H"),
        ("max_block_size", "H"),
        ("request_id", "H"),
    ),
    _free(
        4,
        "file command status",
        records.FileCommandStatus,
        ("file_handle", "I"),
        ("file_size", "I"),
        ("max_block_size", "H"),
        ("request_id", "H"),
        ("status", "F"),
        ("text", "R"),
    ),
    _free(
        5,
        "file transport",
        records.FileTransport,
        ("file_handle", "I"),
        ("block", "K"),
        ("data", "D"),
    ),
    _free(
        6,
        "file transport status",
        records.FileTransportStatus,
        ("file_handle", "I"),
        ("block", "K"),
        ("status", "F"),
        ("text", "R"),
    ),
    _free(
        7,
        "file descriptor",
        records.FileDescriptor,
        ("file_name", "S"),
        ("file_type", "H"),
        ("file_size", "I"),
        ("created_ms", "T"),
        ("permissions", "H"),
        ("request_id", "H"),
    ),
    _free(8, "file specification string", str, ("value", "R")),
    # Internal indications (write bit 7 to clear DEVICE_RESTART)
    _packed(80, 1, "internal indications", None, 1),
]

_BY_KEY: dict[int, Variation] = {v.key: v for v in VARIATIONS}

# Octet-string groups: the variation is the string's length.
OCTET_STRING_GROUPS: dict[int, tuple[str, bool]] = {
    110: ("octet string", False),
    111: ("octet string event", True),
    112: ("virtual terminal output block", False),
    113: ("virtual terminal event data", True),
}


@cache
def _generated(group: int, variation: int) -> Variation | None:
    if group == 0 and variation > 0:
        return Variation(0, variation, attribute_name(variation), None, False, Layout.ATTRIBUTE)
    if group in OCTET_STRING_GROUPS and variation > 0:
        name, event = OCTET_STRING_GROUPS[group]
        return _fixed(
            group, variation, f"{name} of {variation} octets", None, octets(variation), event=event
        )
    return None


def lookup(group: int, variation: int) -> Variation | None:
    """The declaration of group/variation, or None when the library does not know it."""
    found = _BY_KEY.get(group << 8 | variation)
    return found if found is not None else _generated(group, variation)


# Groups whose variation 0 ("any variation") a master may name in a read.
GROUPS: frozenset[int] = frozenset({0, *(v.group for v in VARIATIONS), *OCTET_STRING_GROUPS})
