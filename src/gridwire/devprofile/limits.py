"""The limits on a Device Profile document, in one place: how large a document is read, how
many elements and how deep, and how wide and large its layout's tables may be. Every
refusal and every description of them (the operations' descriptions, README) is written
from these constants; tests/test_limits_prose.py holds the prose to them."""

from __future__ import annotations

from typing import Final

MAX_BYTES: Final = 8 * 1024 * 1024
"""The largest Device Profile document read, in octets (8 MiB), whether it comes as text or as
a file. A document sent in a message is bounded by the message's own cap first
(:data:`gridwire.operations.limits.MESSAGE_LIMIT`); a larger one is given as a file."""
MAX_ELEMENTS: Final = 500_000
"""The most elements a document may hold."""
MAX_DEPTH: Final = 64
"""The deepest its elements may nest."""
MAX_COLUMNS: Final = 200
"""The widest table a layout makes, in columns."""
MAX_CELLS: Final = 1_000_000
"""The most cells a layout's tables hold together."""


def mebibytes(octets: int) -> str:
    """``octets`` as prose: ``8 MiB`` for a whole number of mebibytes, else the octets."""
    whole, rest = divmod(octets, 1 << 20)
    return f"{whole} MiB" if whole and not rest else f"{octets:,} octets"
