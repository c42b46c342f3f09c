"""How much one message may hold, checked before it is parsed.

orjson parses 4 MiB of JSON without releasing the event loop, and what it costs depends on
what the octets hold, not on their number: one 4 MiB string takes 3 ms, 4 MiB of ``[]`` some
300 ms (1.4 million lists, and the garbage collector running over them), and pydantic then
spends as long again on each of them. No message this service takes needs more than a few
thousand items, so a message holding more than :data:`MESSAGE_ITEMS` is refused before
anything is parsed, with a request error that says so: then no message costs the loop more
than a few milliseconds, whatever its shape.

Items are counted as the commas and opening brackets outside strings: every array element
and object member but the first of each follows a comma, and every array and object opens
with a bracket. They are picked out of the octets in one pass of ``bytes.translate`` (about
2 ms for 4 MiB); only when there are too many, strings are left out of the count (a Device
Profile document's text may hold many commas), which costs a few milliseconds more.
"""

from __future__ import annotations

from typing import Final

from gridwire.errors import RequestError
from gridwire.operations.limits import MESSAGE_ITEMS


class TooManyItems(RequestError):
    """A message holding more than :data:`MESSAGE_ITEMS` items."""


def check_items(octets: bytes | bytearray, limit: int = MESSAGE_ITEMS) -> None:
    """TooManyItems when the JSON text ``octets`` holds more than ``limit`` items (see the
    module's text); nothing is parsed. Text that is not JSON is left for the parser to
    refuse: past its first error nothing more is parsed, and up to it this count is exact."""
    if len(octets) <= limit:
        return  # every item takes an octet at least
    marks = octets.translate(None, _NOT_MARKS)  # one pass: the commas, brackets and quotes
    quotes = marks.count(b'"')
    if len(marks) - quotes <= limit:
        return
    # Commas and brackets inside strings were counted too: count again without the strings.
    # With escaped backslashes and quotes taken out, every quote opens or closes a string.
    if b"\\" in octets:
        plain = bytes(octets).replace(b"\\\\", b"").replace(b'\\"', b"")
        marks = plain.translate(None, _NOT_MARKS)
        quotes = marks.count(b'"')
    # Every string is an item or an object member's key, so more than twice the limit of
    # strings is too many items already (and splitting at their quotes would cost more).
    if quotes > 4 * limit + 2:
        raise _refusal(limit)
    outside = sum(len(piece) for piece in marks.split(b'"')[0::2])
    if outside > limit:
        raise _refusal(limit)


_NOT_MARKS: Final = bytes(octet for octet in range(256) if octet not in b',[{"')


def _refusal(limit: int) -> TooManyItems:
    return TooManyItems(
        f"the message holds more than {limit} items (array elements and object members "
        "together); one message takes at most that many"
    )
