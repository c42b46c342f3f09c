"""The flags octet of a point's object: quality flags by name, and the state bits of binary and
double-bit inputs, which are the point's value rather than flags (IEEE 1815-2012, the
"flag octet" of groups 1-4, 10-11, 20-23, 30-33, 40 and 42).

Names are computed once per octet and point type (256 entries each) so decoding an object is a
table lookup; the lists are shared and must not be mutated.
"""

from __future__ import annotations

from collections.abc import Iterable

from gridwire.dnp3.errors import EncodeError

# Bits 0-4 mean the same for every point type.
_COMMON = ("ONLINE", "RESTART", "COMM_LOST", "REMOTE_FORCED", "LOCAL_FORCED")

# Names of bits 0 upward per flag set; a bit absent here is a state bit (binary: bit 7,
# double-bit: bits 6 and 7) and is not a flag.
FLAG_BITS: dict[str, tuple[str, ...]] = {
    "bi": (*_COMMON, "CHATTER_FILTER", "RESERVED"),
    "dbi": (*_COMMON, "CHATTER_FILTER"),
    "bo": (*_COMMON, "RESERVED", "RESERVED"),
    "counter": (*_COMMON, "ROLLOVER", "DISCONTINUITY", "RESERVED"),
    "analog": (*_COMMON, "OVER_RANGE", "REFERENCE_ERR", "RESERVED"),
}

# Which flag set a point type's objects use.
FLAG_SET_OF_TYPE: dict[str, str] = {
    "bi": "bi",
    "dbi": "dbi",
    "bo": "bo",
    "counter": "counter",
    "frozen": "counter",
    "ai": "analog",
    "frozen_ai": "analog",
    "ao": "analog",
}

ONLINE = 0x01
BINARY_STATE = 0x80
DOUBLE_BIT_SHIFT = 6

# States of a double-bit binary input by value. Decoded objects carry the value (0-3, as
# transmitted); encoders take the value or its name.
DOUBLE_BIT_STATES: tuple[str, str, str, str] = (
    "INTERMEDIATE",
    "DETERMINED_OFF",
    "DETERMINED_ON",
    "INDETERMINATE",
)
DOUBLE_BIT_CODES: dict[str | int, int] = {
    **{name: code for code, name in enumerate(DOUBLE_BIT_STATES)},
    **{code: code for code in range(4)},
}


def _names(bits: tuple[str, ...], octet: int) -> list[str]:
    return [name for bit, name in enumerate(bits) if octet >> bit & 1]


# FLAG_NAMES[set][octet] -> the names of the flags set in that octet.
FLAG_NAMES: dict[str, tuple[list[str], ...]] = {
    key: tuple(_names(bits, octet) for octet in range(256)) for key, bits in FLAG_BITS.items()
}


def flag_names(point_type: str) -> tuple[list[str], ...]:
    """The 256-entry name cache for a point type (``bi``, ``ai``, ``frozen``...)."""
    return FLAG_NAMES[FLAG_SET_OF_TYPE[point_type]]


def flags_octet(point_type: str, names: Iterable[str]) -> int:
    """The flags octet with the named flags set (the inverse of the cache; for encoders and
    tests). ``RESERVED`` sets every reserved bit of the set."""
    bits = FLAG_BITS[FLAG_SET_OF_TYPE[point_type]]
    octet = 0
    for name in names:
        wanted = name.strip().upper()
        positions = [bit for bit, known in enumerate(bits) if known == wanted]
        if not positions:
            raise EncodeError(f"{name!r} is not a flag of a {point_type} point ({', '.join(bits)})")
        for bit in positions:
            octet |= 1 << bit
    return octet


def double_bit_code(state: str | int) -> int:
    """The two-bit code of a double-bit state given by name or as 0-3."""
    try:
        return DOUBLE_BIT_CODES[state.strip().upper() if isinstance(state, str) else state]
    except KeyError:
        raise EncodeError(
            f"{state!r} is not a double-bit state ({', '.join(DOUBLE_BIT_STATES)} or 0-3)"
        ) from None
