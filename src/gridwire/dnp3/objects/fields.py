"""Fields of fixed-size object layouts: the vocabulary the declaration table is written in.

A field occupies one or more struct slots and says, as small expressions, what each slot
decodes to and how an item encodes into it. Decode expressions name the field's own slots
``{0}``, ``{1}``...; each reads into a *role* of the decoded object:

- ``value``, ``flags``, ``time`` (``time_ms``), ``sync`` (``synchronized``);
- ``part:<attribute>``: an attribute of the composite value record (``Crob.code``...).

Encode expressions see the item being encoded as ``i`` (index), ``v`` (value), ``f`` (raw
flags octet), ``t`` (time_ms) and ``base`` (the CTO time for relative times), and produce the
field's slot values, comma-separated. Names the expressions use (``FL``, ``ST``...) are bound
by :mod:`.codec`, which compiles each variation's fields into its decoder and encoder.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Field:
    read_code: str  # struct codes of the slots, decoding
    reads: tuple[tuple[str, str], ...]  # (role, expression over the slots)
    write_code: str  # struct codes of the slots, encoding
    write: str  # expression(s) producing the slot values
    float32: bool = False  # an IEEE single whose NaN bit patterns must be kept exactly

    @property
    def size(self) -> int:
        return struct.calcsize("<" + self.read_code)

    @property
    def slots(self) -> int:
        return len(struct.unpack("<" + self.read_code, bytes(self.size)))


def flags() -> Field:
    """A flags octet of quality flags only (counters, analogs)."""
    return Field("B", (("flags", "FL[{0}]"),), "B", "f")


def binary_flags() -> Field:
    """A flags octet whose bit 7 is the state of a binary point (the value, a bool)."""
    return Field(
        "B", (("flags", "FL[{0}]"), ("value", "{0} > 127")), "B", "(f & 0x7F) | (0x80 if v else 0)"
    )


def double_bit_flags() -> Field:
    """A flags octet whose bits 6-7 are a double-bit state (the value, 0-3 as transmitted)."""
    return Field(
        "B", (("flags", "FL[{0}]"), ("value", "{0} >> 6")), "B", "(f & 0x3F) | DBC(v) << 6"
    )


def number(code: str, role: str = "value", source: str = "v") -> Field:
    """An integer or IEEE double of struct code ``code`` (``H I h i d``...)."""
    return Field(code, ((role, "{0}"),), code, source)


def single(role: str = "value", source: str = "v") -> Field:
    """An IEEE single (f32); encoded through its bit pattern so NaN payloads survive."""
    return Field("f", ((role, "{0}"),), "I", f"F32({source})", float32=True)


def time48(*roles: str, source: str = "t") -> Field:
    """A 48-bit DNP3 time (ms since 1970-01-01 UTC), read into each of ``roles``."""
    return Field(
        "IH",
        tuple((role, "({0} | {1} << 32)") for role in roles),
        "IH",
        f"{source} & 0xFFFFFFFF, {source} >> 32",
    )


def relative_time() -> Field:
    """A 16-bit time in ms after the last common time-of-occurrence (g51) of the fragment."""
    return Field(
        "H", (("time", "(None if base is None else base + {0})"), ("sync", "sync")), "H", "t - base"
    )


def part(attribute: str, code: str, decode: str = "{0}", encode: str | None = None) -> Field:
    """One attribute of a composite value, from one slot."""
    return Field(code, ((f"part:{attribute}", decode),), code, encode or f"v.{attribute}")


def constant(attribute: str, expression: str) -> Field:
    """An attribute of a composite value that the wire does not carry."""
    return Field("", ((f"part:{attribute}", expression),), "", "")


def octets(length: int) -> Field:
    """An octet string of ``length`` octets (g110-g113, whose variation is the length)."""
    return Field(f"{length}s", (("value", "OS({0})"),), f"{length}s", f"OCT(v, {length})")
