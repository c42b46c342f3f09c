"""The object data of the reads the master makes, by scan kind or by named points, and of the
requests its tasks send (clear the restart indication, enable unsolicited reporting).

Each function returns the object headers that follow a request's function code; the
association puts the application control and function code before them. Where the protocol
core has a builder (:mod:`gridwire.dnp3.requests`, which makes whole fragments) its object
data is taken from the fragment it builds, so each request is laid out in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gridwire.dnp3 import requests
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.headers import all_header, range_header
from gridwire.dnp3.errors import EncodeError
from gridwire.errors import BadParameter, UnknownName
from gridwire.master.limits import READ_ITEMS

SCAN_KINDS = ("integrity", "events", "class0", "class1", "class2", "class3", "outputs")

# Point type -> the group whose variation 0 reads its present values.
POINT_GROUPS: dict[str, int] = {
    "bi": 1,
    "dbi": 3,
    "bo": 10,
    "counter": 20,
    "frozen": 21,
    "ai": 30,
    "ao": 40,
}


def split(fragment: bytes) -> tuple[FunctionCode, bytes]:
    """The function code and the object data of a request fragment a core builder made."""
    return FunctionCode(fragment[1]), fragment[2:]


def class_read(classes: Iterable[int]) -> bytes:
    """A g60 header (qualifier 0x06) per class, in the order given; class 0 is g60v1."""
    return b"".join(requests.class_header(number) for number in classes)


def integrity_body() -> bytes:
    """Classes 1, 2 and 3, then class 0: events first, so none is lost between the two."""
    return split(requests.integrity_poll(0))[1]


def outputs_body() -> bytes:
    """Every binary output status (g10v0) and analog output status (g40v0)."""
    return all_header(POINT_GROUPS["bo"], 0) + all_header(POINT_GROUPS["ao"], 0)


def scan_body(kind: str) -> bytes:
    """The read of a scan kind: integrity, events, class0..class3 or outputs (each built
    once: a scheduled scan asks for its body at every poll)."""
    body = _SCAN_BODIES.get(kind)
    if body is None:
        body = _SCAN_BODIES[kind] = _build_scan_body(kind)
    return body


_SCAN_BODIES: dict[str, bytes] = {}


def _build_scan_body(kind: str) -> bytes:
    if kind == "integrity":
        return integrity_body()
    if kind == "events":
        return class_read((1, 2, 3))
    if kind == "outputs":
        return outputs_body()
    if kind in ("class0", "class1", "class2", "class3"):
        return class_read((int(kind[-1]),))
    raise UnknownName(f"unknown scan kind {kind!r} (one of {', '.join(SCAN_KINDS)})")


def unsolicited_body(classes: Iterable[int]) -> bytes:
    """The classes whose unsolicited reporting is enabled or disabled (g60v2-4, 0x06)."""
    chosen = list(classes)
    if any(isinstance(c, bool) or not isinstance(c, int) for c in chosen):
        raise BadParameter(f"event classes {chosen!r} are not class numbers 1, 2, 3")
    try:
        return split(requests.enable_unsolicited(0, chosen))[1]
    except EncodeError as exc:
        raise BadParameter(str(exc)) from None


def clear_restart_body() -> bytes:
    """g80v1, start-stop 7..7, one packed bit 0: clears DEVICE_RESTART (IIN1.7)."""
    return split(requests.clear_restart(0))[1]


def freeze_request(clear: bool, no_ack: bool) -> tuple[FunctionCode, bytes]:
    """IMMED_FREEZE / FREEZE_CLEAR (or their no-ack forms) of every counter."""
    return split(requests.freeze(0, clear=clear, ack=not no_ack))


_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")
_SMALLEST_RANGE_HEADER = 5  # group, variation, qualifier 0x00, one-octet start and stop


def read_body(points: dict[str, list[int | str]], room: int | None = None) -> bytes:
    """One range header (variation 0, qualifier 0x00/0x01) per run of consecutive indexes
    of each type named. ``points`` maps a type (bi, dbi, bo, counter, frozen, ai, ao) to
    indexes and ``"a-b"`` ranges; overlapping and adjacent ones are merged, and a range is
    never expanded into its indexes, so the work is that of sorting the items named.

    RequestError for a type or item that is not one, for more than :data:`READ_ITEMS`
    items, and for headers that would take more than ``room`` octets (the object data a
    request to the outstation can carry), before they are built."""
    if not points:
        raise BadParameter("read: name at least one point type")
    named = sum(len(items) for items in points.values() if isinstance(items, list))
    if named > READ_ITEMS:
        raise BadParameter(
            f"read: {named} indexes and ranges are named; one read takes at most {READ_ITEMS}"
        )
    plan: list[tuple[int, list[tuple[int, int]]]] = []
    for point_type, items in points.items():
        group = POINT_GROUPS.get(point_type)
        if group is None:
            known = ", ".join(POINT_GROUPS)
            raise UnknownName(f"read: unknown point type {point_type!r} (one of {known})")
        plan.append((group, merged(_ranges(point_type, items))))
    headers = sum(len(runs) for _, runs in plan)
    if room is not None and headers * _SMALLEST_RANGE_HEADER > room:
        raise _too_large(headers, headers * _SMALLEST_RANGE_HEADER, room, "at least ")
    body = b"".join(
        range_header(group, 0, start, stop) for group, runs in plan for start, stop in runs
    )
    if room is not None and len(body) > room:
        raise _too_large(headers, len(body), room)
    return body


def _too_large(headers: int, size: int, room: int, least: str = "") -> BadParameter:
    return BadParameter(
        f"read: the {headers} range headers take {least}{size} octets, more than the {room} "
        "a request to this outstation can carry (its max_request_fragment, less 2 octets "
        "of header); read fewer ranges at a time"
    )


def _ranges(point_type: str, items: list[int | str]) -> list[tuple[int, int]]:
    """Each item as (start, stop), checked."""
    if not isinstance(items, list) or not items:
        raise BadParameter(f"read: {point_type} needs a list of indexes or ranges")
    out: list[tuple[int, int]] = []
    for item in items:
        if isinstance(item, bool):
            raise BadParameter(f"read: {point_type} index {item!r} is not an index")
        if isinstance(item, int):
            start = stop = item
        elif isinstance(item, str) and (match := _RANGE.match(item)):
            start, stop = int(match.group(1)), int(match.group(2))
        elif isinstance(item, str) and item.strip().isdigit():
            start = stop = int(item)
        else:
            raise BadParameter(f"read: {point_type} {_shown(item)} is not an index or a range a-b")
        if start < 0 or stop > 0xFFFF or stop < start:
            raise BadParameter(f"read: {point_type} {_shown(item)} is not a range within 0-65535")
        out.append((start, stop))
    return out


def _shown(item: object) -> str:
    """An item for an error message, cut short when long."""
    text = repr(item)
    return text if len(text) <= 40 else f"{text[:37]}..."


def merged(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges (start, stop), both included, as the fewest ranges covering the same indexes:
    sorted, with overlapping and adjacent ones joined. Never expands a range."""
    runs: list[tuple[int, int]] = []
    for start, stop in sorted(ranges):
        if runs and start <= runs[-1][1] + 1:
            if stop > runs[-1][1]:
                runs[-1] = (runs[-1][0], stop)
        else:
            runs.append((start, stop))
    return runs
