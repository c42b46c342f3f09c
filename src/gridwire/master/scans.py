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
from gridwire.errors import RequestError

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
    """The read of a scan kind: integrity, events, class0..class3 or outputs."""
    if kind == "integrity":
        return integrity_body()
    if kind == "events":
        return class_read((1, 2, 3))
    if kind == "outputs":
        return outputs_body()
    if kind in ("class0", "class1", "class2", "class3"):
        return class_read((int(kind[-1]),))
    raise RequestError(f"unknown scan kind {kind!r} (one of {', '.join(SCAN_KINDS)})")


def unsolicited_body(classes: Iterable[int]) -> bytes:
    """The classes whose unsolicited reporting is enabled or disabled (g60v2-4, 0x06)."""
    chosen = list(classes)
    if any(isinstance(c, bool) or not isinstance(c, int) for c in chosen):
        raise RequestError(f"event classes {chosen!r} are not class numbers 1, 2, 3")
    try:
        return split(requests.enable_unsolicited(0, chosen))[1]
    except EncodeError as exc:
        raise RequestError(str(exc)) from None


def clear_restart_body() -> bytes:
    """g80v1, start-stop 7..7, one packed bit 0: clears DEVICE_RESTART (IIN1.7)."""
    return split(requests.clear_restart(0))[1]


def freeze_request(clear: bool, no_ack: bool) -> tuple[FunctionCode, bytes]:
    """IMMED_FREEZE / FREEZE_CLEAR (or their no-ack forms) of every counter."""
    return split(requests.freeze(0, clear=clear, ack=not no_ack))


_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")


def read_body(points: dict[str, list[int | str]]) -> bytes:
    """One range header (variation 0, qualifier 0x00/0x01) per run of consecutive indexes
    of each type named. ``points`` maps a type (bi, dbi, bo, counter, frozen, ai, ao) to
    indexes and ``"a-b"`` ranges."""
    if not points:
        raise RequestError("read: name at least one point type")
    headers: list[bytes] = []
    for point_type, items in points.items():
        group = POINT_GROUPS.get(point_type)
        if group is None:
            known = ", ".join(POINT_GROUPS)
            raise RequestError(f"read: unknown point type {point_type!r} (one of {known})")
        indexes = _indexes(point_type, items)
        for start, stop in _runs(indexes):
            headers.append(range_header(group, 0, start, stop))
    return b"".join(headers)


def _indexes(point_type: str, items: list[int | str]) -> list[int]:
    if not isinstance(items, list) or not items:
        raise RequestError(f"read: {point_type} needs a list of indexes or ranges")
    out: set[int] = set()
    for item in items:
        if isinstance(item, bool):
            raise RequestError(f"read: {point_type} index {item!r} is not an index")
        if isinstance(item, int):
            start = stop = item
        elif isinstance(item, str) and (match := _RANGE.match(item)):
            start, stop = int(match.group(1)), int(match.group(2))
        elif isinstance(item, str) and item.strip().isdigit():
            start = stop = int(item)
        else:
            raise RequestError(f"read: {point_type} {item!r} is not an index or a range a-b")
        if start < 0 or stop > 0xFFFF or stop < start:
            raise RequestError(f"read: {point_type} {item!r} is not a range within 0-65535")
        if stop - start > 0xFFFF:
            raise RequestError(f"read: {point_type} range {item!r} is too large")
        out.update(range(start, stop + 1))
    return sorted(out)


def _runs(indexes: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for index in indexes:
        if runs and index == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs
