"""yadnp3 (opendnp3) control objects to and from JSON.

A CROB is ``{"kind": "crob", "index", "op_type", "tcc", "clear", "count", "on_ms", "off_ms"}``
(op_type NUL / PULSE_ON / PULSE_OFF / LATCH_ON / LATCH_OFF, tcc NUL / CLOSE / TRIP); an analog
output is ``{"kind": "int16" | "int32" | "float32" | "double64", "index", "value"}``.
"""

from __future__ import annotations

import struct
from typing import Any

import opendnp3 as o
from peerio import CommandError, Json, enum_member, require

ANALOG_KINDS: dict[str, Any] = {
    "int16": o.AnalogOutputInt16,
    "int32": o.AnalogOutputInt32,
    "float32": o.AnalogOutputFloat32,
    "double64": o.AnalogOutputDouble64,
}
_KIND_OF_CLASS = {cls.__name__: kind for kind, cls in ANALOG_KINDS.items()}

# opendnp3's OperationType is the low nibble of the control code; TripCloseCode its top
# two bits.
_ON = ("LATCH_ON", "PULSE_ON")


def describe(command: Any, index: int) -> Json:
    """What arrived at the outstation's command handler."""
    name = type(command).__name__
    if name == "ControlRelayOutputBlock":
        return {
            "kind": "crob",
            "index": index,
            "op_type": command.opType.name,
            "tcc": command.tcc.name,
            "clear": bool(command.clear),
            "count": int(command.count),
            "on_ms": int(command.onTimeMS),
            "off_ms": int(command.offTimeMS),
        }
    kind = _KIND_OF_CLASS.get(name)
    if kind is None:
        return {"kind": name, "index": index}
    value = command.value
    return {
        "kind": kind,
        "index": index,
        "value": float(value) if kind in ("float32", "double64") else int(value),
    }


def output_state(control: Json) -> tuple[str, bool | float] | None:
    """The output status a successful control leaves: (type, value), or None if it sets none."""
    if control["kind"] == "crob":
        if control["tcc"] == "CLOSE":
            return "binary_output_status", True
        if control["tcc"] == "TRIP":
            return "binary_output_status", False
        if control["op_type"] in ("NUL", "Undefined"):
            return None
        return "binary_output_status", control["op_type"] in _ON
    if control["kind"] in ANALOG_KINDS:
        return "analog_output_status", float(control["value"])
    return None


def build(command: Json) -> Any:
    """The opendnp3 control object a master command describes."""
    kind = str(require(command, "kind"))
    if kind == "crob":
        return o.ControlRelayOutputBlock(
            enum_member(o.OperationType, command.get("op_type", "LATCH_ON")),
            enum_member(o.TripCloseCode, command.get("tcc", "NUL")),
            bool(command.get("clear", False)),
            int(command.get("count", 1)),
            int(command.get("on_ms", 100)),
            int(command.get("off_ms", 100)),
        )
    factory = ANALOG_KINDS.get(kind)
    if factory is None:
        raise CommandError(f"kind {kind!r} is not crob or one of {sorted(ANALOG_KINDS)}")
    value = require(command, "value")
    return factory(float(value) if kind in ("float32", "double64") else int(value))


# The variation of group 41 each analog kind travels in, and its value's struct format.
_G41: dict[str, tuple[int, str]] = {
    "int32": (1, "<i"),
    "int16": (2, "<h"),
    "float32": (3, "<f"),
    "double64": (4, "<d"),
}


def raw_object(command: Json) -> bytes:
    """A control as one object header with qualifier 0x28 (2-octet count, 2-octet index),
    for IMaster.PerformFunction's ``Header.Raw``: yadnp3's master has no DirectOperateNoAck,
    so DIRECT_OPERATE_NR goes out this way (IEEE 1815-2012 A.8.1 and A.25 give the layouts).
    """
    kind = str(require(command, "kind"))
    index = int(require(command, "index"))
    if kind == "crob":
        crob = build(command)
        code = (int(crob.tcc.value) << 6) | (0x20 if crob.clear else 0) | int(crob.opType.value)
        body = struct.pack("<BBIIB", code, crob.count, crob.onTimeMS, crob.offTimeMS, 0)
        return bytes([12, 1, 0x28]) + struct.pack("<HH", 1, index) + body
    if kind not in _G41:
        raise CommandError(f"kind {kind!r} is not crob or one of {sorted(_G41)}")
    variation, fmt = _G41[kind]
    value = require(command, "value")
    packed = struct.pack(fmt, float(value) if kind in ("float32", "double64") else int(value))
    return bytes([41, variation, 0x28]) + struct.pack("<HH", 1, index) + packed + b"\x00"
