"""Packed layouts: one bit per object (g1v1, g10v1, g12v3, g80v1) or two (g3v1), the first
object in the least significant bits of the first octet; the last octet is padded with
zeros."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.flags import double_bit_code
from gridwire.dnp3.objects.records import DnpObject, Value
from gridwire.dnp3.objects.table import Variation

# Each octet as the values it packs, precomputed.
_ONE_BIT: tuple[tuple[bool, ...], ...] = tuple(
    tuple(bool(octet >> bit & 1) for bit in range(8)) for octet in range(256)
)
_TWO_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(octet >> shift & 3 for shift in range(0, 8, 2)) for octet in range(256)
)


def packed_size(bits: int, count: int) -> int:
    """Octets that ``count`` objects of ``bits`` bits occupy."""
    return (count * bits + 7) // 8


def decode_packed(
    decl: Variation, block: bytes | memoryview, indices: Iterable[int | None], count: int
) -> list[DnpObject]:
    table: Sequence[Sequence[Value]] = _ONE_BIT if decl.bits == 1 else _TWO_BITS
    values = list(chain.from_iterable(table[octet] for octet in block))[:count]
    type_, group, variation = decl.point_type, decl.group, decl.variation
    return [
        DnpObject(type_, group, variation, index, None, value, None, None, None, False)
        for index, value in zip(indices, values, strict=False)
    ]


def encode_packed(decl: Variation, values: Sequence[object]) -> bytes:
    """The octets packing ``values`` (bools, or double-bit states by name or 0-3)."""
    per_octet = 8 // decl.bits
    out = bytearray(packed_size(decl.bits, len(values)))
    for k, value in enumerate(values):
        if decl.bits == 1:
            code = 1 if value else 0
        elif isinstance(value, str | int):
            code = double_bit_code(value)
        else:
            raise EncodeError(f"{value!r} is not a double-bit state")
        out[k // per_octet] |= code << (k % per_octet) * decl.bits
    return bytes(out)
