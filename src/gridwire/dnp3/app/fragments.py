"""Application fragments (IEEE 1815-2012 4.2.2): parsing requests and responses into records,
and encoding them.

A request is the application control octet, a function code and object headers with their
data; a response adds the two internal indication octets after the function code. Parsing
raises :class:`DecodeError` only when the fragment is too short to hold its header or names
an unknown function code (or one of the other direction). Everything after that is walked
header by header; the first header that cannot be read or sized stops the walk and is
reported in ``undecoded`` with its offset and the reason, and what came before it is kept.

Requests of functions that name objects without sending them (READ, the freezes, ENABLE/
DISABLE_UNSOLICITED, ASSIGN_CLASS) parse into headers with no objects; index-prefixed headers
of such requests list the indexes they name. FREEZE_AT_TIME carries data only in its g50
header.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gridwire.dnp3.app.control import AppControl
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.headers import (
    FREE_FORMAT,
    INDEX_PREFIX,
    HeaderError,
    ObjectHeader,
    read_header,
)
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.errors import DecodeError, EncodeError
from gridwire.dnp3.objects.decode import TimeBase, decode_objects
from gridwire.dnp3.objects.records import DnpObject
from gridwire.dnp3.objects.table import lookup

F = FunctionCode
FILE_GROUP = 70

# Request functions whose headers name objects but carry no object data.
HEADERS_ONLY: frozenset[FunctionCode] = frozenset(
    {
        F.READ,
        F.IMMED_FREEZE,
        F.IMMED_FREEZE_NR,
        F.FREEZE_CLEAR,
        F.FREEZE_CLEAR_NR,
        F.ENABLE_UNSOLICITED,
        F.DISABLE_UNSOLICITED,
        F.ASSIGN_CLASS,
        F.INITIALIZE_DATA,
    }
)
_FREEZE_AT_TIME = frozenset({F.FREEZE_AT_TIME, F.FREEZE_AT_TIME_NR})
RESPONSES: frozenset[FunctionCode] = frozenset(
    {F.RESPONSE, F.UNSOLICITED_RESPONSE, F.AUTHENTICATE_RESP}
)


@dataclass(frozen=True, slots=True)
class Undecoded:
    """Where the walk stopped: the offset of the header in the fragment, its group and
    variation when they could be read, and why."""

    offset: int
    group: int | None
    variation: int | None
    reason: str


@dataclass(slots=True)
class Request:
    control: AppControl
    function: FunctionCode
    headers: list[ObjectHeader]
    objects: list[DnpObject]
    undecoded: list[Undecoded]
    raw: bytes


@dataclass(slots=True)
class Response:
    control: AppControl
    function: FunctionCode
    iin: IIN
    headers: list[ObjectHeader]
    objects: list[DnpObject]
    undecoded: list[Undecoded]
    raw: bytes


@dataclass(slots=True)
class _Walk:
    headers: list[ObjectHeader] = field(default_factory=list)
    objects: list[DnpObject] = field(default_factory=list)
    undecoded: list[Undecoded] = field(default_factory=list)


def _carries_data(function: FunctionCode | None, header: ObjectHeader) -> bool:
    """Whether a header of this request function (None: a response) has object data. A READ
    of a file's block names it with a g70v5 of free format (0x5B): the handle and block."""
    if function is None:
        return True
    group, variation = header.group, header.variation
    if function is F.READ and group == FILE_GROUP and header.qualifier == FREE_FORMAT:
        return True
    if variation == 0 or group == 60 or function in HEADERS_ONLY:
        return False
    if function in _FREEZE_AT_TIME:
        return group == 50
    return True


def _named_indices(header: ObjectHeader, data: bytes, pos: int) -> int:
    """An index-prefixed header without data: read the indexes it names."""
    width = INDEX_PREFIX.get(header.prefix_code)
    count = header.count or 0
    if width is None:
        if header.prefix_code:
            raise DecodeError(f"qualifier 0x{header.qualifier:02X} needs object data")
        return pos
    if count == 0:
        raise DecodeError("count of zero indexes")
    end = pos + width * count
    if end > len(data):
        raise DecodeError(f"{count} indexes need {width * count} octets, {len(data) - pos} remain")
    header.indices = [
        int.from_bytes(data[at : at + width], "little") for at in range(pos, end, width)
    ]
    return end


def _walk(data: bytes, pos: int, function: FunctionCode | None) -> _Walk:
    walk = _Walk()
    view = memoryview(data)
    base = TimeBase()
    while pos < len(data):
        start = pos
        group = data[pos]
        variation = data[pos + 1] if pos + 1 < len(data) else None
        try:
            header, pos = read_header(data, pos)
            if _carries_data(function, header):
                decl = lookup(header.group, header.variation)
                if decl is None:
                    raise DecodeError(f"unknown object g{header.group}v{header.variation}")
                pos = decode_objects(decl, header, view, pos, base)
            else:
                pos = _named_indices(header, data, pos)
        except (HeaderError, DecodeError) as exc:
            walk.undecoded.append(Undecoded(start, group, variation, str(exc)))
            break
        walk.headers.append(header)
        walk.objects += header.objects
    return walk


def _head(fragment: bytes, size: int, response: bool) -> tuple[bytes, FunctionCode]:
    """The fragment's octets and function code, checked for the direction."""
    raw = bytes(fragment)
    kind = "response" if response else "request"
    if len(raw) < size:
        raise DecodeError(f"{kind} fragment of {len(raw)} octets: needs at least {size}")
    function = FunctionCode.from_octet(raw[1])
    if (function in RESPONSES) is not response:
        other = "request" if response else "response"
        raise DecodeError(f"{function.name} is a {other}'s function code, not a {kind}'s")
    return raw, function


def parse_request(fragment: bytes) -> Request:
    """A request fragment as a record; DecodeError only for a fragment shorter than 2 octets
    or a function code that is not a request's."""
    raw, function = _head(fragment, 2, response=False)
    walk = _walk(raw, 2, function)
    return Request(
        AppControl.from_octet(raw[0]), function, walk.headers, walk.objects, walk.undecoded, raw
    )


def parse_response(fragment: bytes) -> Response:
    """A response fragment as a record; DecodeError only for a fragment shorter than 4 octets
    or a function code that is not a response's."""
    raw, function = _head(fragment, 4, response=True)
    walk = _walk(raw, 4, None)
    return Response(
        AppControl.from_octet(raw[0]),
        function,
        IIN.from_octets(raw[2], raw[3]),
        walk.headers,
        walk.objects,
        walk.undecoded,
        raw,
    )


def _control_octet(control: AppControl | int) -> int:
    if isinstance(control, AppControl):
        return control.to_octet()
    if not 0 <= control <= 0xFF:
        raise EncodeError(f"application control {control} does not fit one octet")
    return control


def _function(function: FunctionCode | int | str) -> FunctionCode:
    try:
        if isinstance(function, str):
            return FunctionCode.from_name(function)
        return FunctionCode.from_octet(int(function))
    except DecodeError as exc:
        raise EncodeError(str(exc)) from None


def encode_request(
    control: AppControl | int, function: FunctionCode | int | str, body: bytes = b""
) -> bytes:
    """Control octet, function code and the object headers and data in ``body``."""
    code = _function(function)
    if code in RESPONSES:
        raise EncodeError(f"{code.name} is not a request function")
    return bytes((_control_octet(control), code)) + bytes(body)


def encode_response(
    control: AppControl | int,
    function: FunctionCode | int | str,
    iin: IIN | int,
    body: bytes = b"",
) -> bytes:
    """Control octet, function code (RESPONSE, UNSOLICITED_RESPONSE, AUTHENTICATE_RESP),
    the internal indications (IIN1, IIN2) and the objects in ``body``."""
    code = _function(function)
    if code not in RESPONSES:
        raise EncodeError(f"{code.name} is not a response function")
    if not 0 <= int(iin) <= 0xFFFF:
        raise EncodeError(f"internal indications {int(iin)} do not fit two octets")
    return bytes((_control_octet(control), code, int(iin) & 0xFF, int(iin) >> 8)) + bytes(body)
