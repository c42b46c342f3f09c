"""The generic codec of fixed-size layouts, compiled from a variation's fields.

For each variation the table declares, :func:`fixed_codec` builds (once, on first use) a
struct format and Python source for two decoders and one encoder row function from the
field expressions of :mod:`.fields`, and compiles them. A decoder makes each
:class:`DnpObject` by calling it (a msgspec Struct: its fields set in C, no ``__init__``
frame, D221) and its composite value, if any, empty with ``object.__new__`` mapped in C, then
filled, in one loop over ``struct.iter_unpack``, with flag names and status names looked up
in prebuilt tables: about five million g30v1 objects a second on one core. A variation with
no composite value and no NaN to mend makes its objects in one list comprehension, and one of
a single octet (a flags octet: g1v2, g10v2...) iterates the octets themselves (D237). The
value records built so must not gain a ``__post_init__`` (the generator refuses one) and
every field is set. Nothing is lazy: every object is built when the fragment is parsed.

IEEE singles: a NaN single is rebuilt from its octets in the same loop (:mod:`.singles`),
and the encoder writes singles through their bit pattern.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from functools import cache
from itertools import repeat
from typing import Any

from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.controls import OP_NAMES, STATUS_NAMES, status_code
from gridwire.dnp3.objects.flags import double_bit_code, flag_names
from gridwire.dnp3.objects.records import DnpObject, Octets
from gridwire.dnp3.objects.singles import single_bits, single_from_octets
from gridwire.dnp3.objects.table import Variation
from gridwire.dnp3.objects.times import UNIT_NAMES, unit_code

Buffer = bytes | memoryview
Ranged = Callable[[Buffer, Iterable[int | None], int | None, bool | None], list[DnpObject]]
Prefixed = Callable[[Buffer, struct.Struct, int | None, bool | None], list[DnpObject]]
Row = Callable[[int | None, Any, int, int | None, int | None], tuple[Any, ...]]

_INDEX_CODES = {1: "B", 2: "H", 4: "I"}


@dataclass(frozen=True, slots=True)
class FixedCodec:
    """A fixed-size variation's compiled decoders and encoder row."""

    size: int
    read: struct.Struct  # one object, as it is read
    write: struct.Struct  # one object, as it is written
    ranged: Ranged  # objects for the given indexes (None for count qualifiers)
    prefixed: Prefixed  # objects each led by an index prefix (the struct passed in)
    row: Row  # an item's slot values: row(index, value, flags, time_ms, cto_base)
    prefix_read: dict[int, struct.Struct]  # index prefix width -> prefix + object, read
    prefix_write: dict[int, struct.Struct]  # the same, written


def exact_octets(value: bytes, length: int) -> bytes:
    """``value`` when it is ``length`` octets long (struct would pad or cut it silently)."""
    if len(value) != length:
        raise EncodeError(f"{len(value)} octets given for an octet string of {length}")
    return value


def _namespace(decl: Variation) -> dict[str, Any]:
    return {
        "O": DnpObject,
        "R": decl.record,
        "NEW": object.__new__,
        "repeat": repeat,
        "FL": flag_names(decl.point_type) if decl.carries_flags and decl.point_type else None,
        "DBC": double_bit_code,
        "ST": STATUS_NAMES,
        "SC": status_code,
        "OPN": OP_NAMES,
        "UN": UNIT_NAMES,
        "UNC": unit_code,
        "N32": single_from_octets,
        "F32": single_bits,
        "OCT": exact_octets,
        "OS": Octets,
    }


def _filled(cls: type[Any], var: str, values: dict[str, str]) -> str:
    """Source lines (in the decoder's loop) that set every field of ``var``, an instance of
    the dataclass ``cls`` made by ``object.__new__``, from ``values`` (field name ->
    expression). Making the instances with ``map`` and storing their slots costs about
    three fifths of calling the class, which runs ``__init__`` in a frame of its own."""
    names = [f.name for f in fields(cls)]
    if set(names) != set(values) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} cannot be built field by field from {sorted(values)}")
    return "".join(f"        {var}.{name} = {values[name]}\n" for name in names)


def _arguments(values: dict[str, str]) -> str:
    """The arguments of a :class:`DnpObject` call, in its field order, from ``values`` (field
    name -> expression)."""
    names = DnpObject.__struct_fields__
    if set(names) != set(values):
        raise TypeError(f"DnpObject cannot be built from {sorted(values)}")
    return ", ".join(values[name] for name in names)


def _source(decl: Variation) -> tuple[str, str, str, int]:
    """Python source of the two decoders and the row encoder; and the object's size."""
    slots: list[str] = []
    roles: dict[str, str] = {}
    parts: dict[str, str] = {}
    writes: list[str] = []
    nan_fixes: list[tuple[int, str, str]] = []  # (offset in the object, slot, where it goes)
    offset = 0
    for fld in decl.fields:
        names = [f"a{len(slots) + k}" for k in range(fld.slots)]
        slots += names
        for role, template in fld.reads:
            expression = template.format(*names)
            if role.startswith("part:"):
                parts[role[5:]] = expression
            else:
                roles[role] = expression
            if fld.float32:
                path = f"v.{role[5:]}" if role.startswith("part:") else "o.value"
                nan_fixes.append((offset, names[0], path))
        if fld.write:
            writes.append(fld.write)
        offset += fld.size
    # A composite value is made empty first, n at a time, then filled; the object itself is
    # made by calling the Struct with every field in order (D221).
    made = "    out = []\n    add = out.append\n"
    targets = ""
    sources = ""
    body = ""
    if decl.record is not None and decl.record is not str:
        made += "    values = map(NEW, repeat(R, n))\n"
        targets += "v, "
        sources += "values, "
        body += _filled(decl.record, "v", parts)
        roles["value"] = "v"
    # A NaN single is rebuilt from its octets (struct quiets signalling NaNs): object k
    # starts at k * stride, its field at lead + the field's offset. A value's slot is mended
    # before the object is made, a composite's part after its record is filled.
    body += "".join(
        f"        if {slot} != {slot}:\n"
        f"            {slot if path == 'o.value' else path} = "
        f"N32(block, k * ({offset} + lead) + lead + {at})\n"
        for at, slot, path in nan_fixes
    )
    obj = {
        "type": repr(decl.point_type),
        "group": str(decl.group),
        "variation": str(decl.variation),
        "index": "i",
        "name": "None",
        "value": roles.get("value", "None"),
        "flags": roles.get("flags", "None"),
        "time_ms": roles.get("time", "None"),
        "synchronized": roles.get("sync", repr(decl.synchronized)),
        "event": repr(decl.event),
    }
    call = f"O({_arguments(obj)})"
    unpacked = ", ".join(slots)
    # One octet, one slot ("B"): the octets are iterated as they are, no struct between.
    rows = "block" if _one_octet(decl) else "S.iter_unpack(block)"
    ranged_target = f"i, {slots[0]}" if rows == "block" else f"i, ({unpacked},)"
    if not body:  # one call per object: a comprehension, quicker than a loop's appends
        ranged = (
            "def ranged(block, indices, base, sync):\n"
            f"    return [{call} for {ranged_target} in zip(indices, {rows}, strict=True)]\n"
        )
        prefixed = (
            "def prefixed(block, P, base, sync):\n"
            f"    return [{call} for i, {unpacked} in P.iter_unpack(block)]\n"
        )
        return ranged, prefixed, _row(writes), offset
    body += f"        add({call})\n"

    def loop(target: str, rows: str) -> str:
        pairs = f"zip({sources}{rows}, strict=True)"
        if nan_fixes:
            return f"    for k, ({targets}{target}) in enumerate({pairs}):\n"
        return f"    for {targets}{target} in {pairs}:\n"

    ranged = (
        "def ranged(block, indices, base, sync):\n"
        f"    n = len(block) // {offset}\n"
        f"{made}"
        "    lead = 0\n"
        f"{loop(ranged_target, f'indices, {rows}')}"
        f"{body}"
        "    return out\n"
    )
    prefixed = (
        "def prefixed(block, P, base, sync):\n"
        "    n = len(block) // P.size\n"
        f"{made}"
        f"    lead = P.size - {offset}\n"
        f"{loop(f'(i, {unpacked}),', 'P.iter_unpack(block)')}"
        f"{body}"
        "    return out\n"
    )
    return ranged, prefixed, _row(writes), offset


def _row(writes: list[str]) -> str:
    return f"def row(i, v, f, t, base):\n    return ({', '.join(writes)},)\n"


def _one_octet(decl: Variation) -> bool:
    """Whether an object of ``decl`` is one octet read into one slot (a flags octet)."""
    return "".join(f.read_code for f in decl.fields) == "B"


@cache
def fixed_codec(decl: Variation) -> FixedCodec:
    """The compiled codec of a fixed-size variation (built on first use, then cached)."""
    read_code = "".join(f.read_code for f in decl.fields)
    write_code = "".join(f.write_code for f in decl.fields)
    read = struct.Struct("<" + read_code)
    namespace = _namespace(decl) | {"S": read}
    ranged, prefixed, row, size = _source(decl)
    exec(compile(ranged + prefixed + row, f"<g{decl.group}v{decl.variation}>", "exec"), namespace)
    return FixedCodec(
        size=size,
        read=read,
        write=struct.Struct("<" + write_code),
        ranged=namespace["ranged"],
        prefixed=namespace["prefixed"],
        row=namespace["row"],
        prefix_read={w: struct.Struct("<" + c + read_code) for w, c in _INDEX_CODES.items()},
        prefix_write={w: struct.Struct("<" + c + write_code) for w, c in _INDEX_CODES.items()},
    )
