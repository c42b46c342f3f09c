"""yadnp3 (opendnp3) measurements to and from the JSON the peer programs speak.

Point types are named as the harness names them: binary, double_bit, analog, counter,
frozen_counter, binary_output_status, analog_output_status, time_and_interval, octet_string.
A value record is ``{"type", "index", "value", "flags", "time_ms", "time_quality"}`` (time
fields only where the object carries a time).
"""

from __future__ import annotations

from typing import Any

import opendnp3 as o
from peerio import CommandError, Json, enum_member, require

# UpdateBuilder.Update has no overload for frozen counters (they come from FreezeCounter) nor
# for octet strings: those two cannot be set from Python.
_MEASUREMENTS: dict[str, Any] = {
    "binary": o.Binary,
    "double_bit": o.DoubleBitBinary,
    "analog": o.Analog,
    "counter": o.Counter,
    "binary_output_status": o.BinaryOutputStatus,
    "analog_output_status": o.AnalogOutputStatus,
}

UPDATABLE = (*_MEASUREMENTS, "time_and_interval")
_STATE_BITS = {"binary": 0x80, "binary_output_status": 0x80, "double_bit": 0xC0}

# Process() receives lists of these; the harness names them by point type.
_INDEXED: dict[str, str] = {
    "IndexedBinary": "binary",
    "IndexedDoubleBitBinary": "double_bit",
    "IndexedAnalog": "analog",
    "IndexedCounter": "counter",
    "IndexedFrozenCounter": "frozen_counter",
    "IndexedBinaryOutputStatus": "binary_output_status",
    "IndexedAnalogOutputStatus": "analog_output_status",
    "IndexedTimeAndInterval": "time_and_interval",
    "IndexedOctetString": "octet_string",
    "IndexedBinaryCommandEvent": "binary_command_event",
    "IndexedAnalogCommandEvent": "analog_command_event",
}


def _time(command: Json) -> Any:
    quality = enum_member(o.TimestampQuality, command.get("time_quality", "SYNCHRONIZED"))
    return o.DNPTime(int(command["time_ms"]), quality)


def _value(kind: str, raw: object) -> Any:
    if kind in ("binary", "binary_output_status"):
        if not isinstance(raw, bool):
            raise CommandError(f"{kind} value must be true or false")
        return raw
    if kind == "double_bit":
        return enum_member(o.DoubleBit, raw)
    if kind == "counter":
        if not isinstance(raw, int) or isinstance(raw, bool) or not 0 <= raw < 2**32:
            raise CommandError("counter value must be an integer 0..2**32-1")
        return raw
    if not isinstance(raw, int | float) or isinstance(raw, bool):
        raise CommandError(f"{kind} value must be a number")
    return float(raw)


def measurement(command: Json) -> tuple[Any, int]:
    """The opendnp3 measurement an ``update`` command describes, and its index."""
    kind = str(require(command, "type"))
    index = int(require(command, "index"))
    if kind == "time_and_interval":
        units = enum_member(o.IntervalUnits, command.get("units", "Milliseconds"))
        value = o.TimeAndInterval(
            o.DNPTime(int(require(command, "value"))), int(command.get("interval", 0)), units
        )
        return value, index
    factory = _MEASUREMENTS.get(kind)
    if factory is None:
        raise CommandError(f"type {kind!r} cannot be updated from Python; one of {UPDATABLE}")
    value = factory(_value(kind, require(command, "value")))
    if "flags" in command:
        # opendnp3 keeps a binary's state in its flags (bit 7; bits 7-6 for a double bit):
        # the flags given replace the others only.
        state_bits = _STATE_BITS.get(kind, 0)
        value.flags = o.Flags(
            int(command["flags"]) & ~state_bits | int(value.flags.value) & state_bits
        )
    if command.get("time_ms") is not None:
        value.time = _time(command)
    return value, index


def _plain(value: Any) -> Any:
    """A JSON-able form of a measurement's value."""
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if hasattr(value, "ToBytes"):  # OctetString
        return value.ToBytes().hex()
    if hasattr(value, "name"):  # an enum
        return value.name
    return str(value)


def _unit_name(units: Any) -> Any:
    """g50v4's interval units: the binding hands over an int, not an IntervalUnits."""
    try:
        return enum_member(o.IntervalUnits, int(units)).name
    except (CommandError, TypeError, ValueError):
        return _plain(units)


def describe(kind: str, indexed: Any) -> Json:
    """One value from a master's Process() callback as a JSON record."""
    index = int(indexed.index)
    value = indexed.value
    if kind == "octet_string":
        return {"type": kind, "index": index, "value": value.ToBytes().hex()}
    if kind == "time_and_interval":
        return {
            "type": kind,
            "index": index,
            "value": int(value.time.value),
            "interval": int(value.interval),
            "units": _unit_name(value.units),
        }
    record: Json = {"type": kind, "index": index, "value": _plain(value.value)}
    if hasattr(value, "status"):  # command events (g13, g43)
        record["status"] = value.status.name
    if hasattr(value, "flags"):
        record["flags"] = int(value.flags.value)
    time = getattr(value, "time", None)
    if time is not None:
        record["time_ms"] = int(time.value)
        record["time_quality"] = time.quality.name
    return record


def kind_of(values: list[Any]) -> str:
    """The point type of a Process() list, from the class of its elements."""
    if not values:
        return "unknown"
    name = type(values[0]).__name__
    return _INDEXED.get(name, name)
