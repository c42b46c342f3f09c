"""What the object decoder produces: :class:`DnpObject` (the operations API's Object record)
and the small records that are the ``value`` of composite objects.

The small records are ``@dataclass(slots=True)``, not frozen: the master hands them to orjson
as they are (decision D3). :class:`DnpObject`, of which a 9000-point scan makes 9000, is a
msgspec Struct made without garbage-collector tracking that also carries a dataclass's
metadata (D221): msgspec builds and writes it in about half the time a slotted dataclass takes,
while orjson, pydantic and :mod:`dataclasses` (``fields``, ``asdict``, ``replace``) see a
dataclass, field for field as before. Octet-string values are ``bytes``, which orjson does
not serialize by itself: a JSON writer needs a ``default`` for them (hexadecimal text, say).
The fixed-layout decoders (:mod:`.fixed`) make the value records with ``object.__new__`` and
set every field, bypassing ``__init__``: give them no ``__post_init__`` (the decoder
generator refuses one) or other construction logic.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TypeAlias

import msgspec


class Octets(bytes):
    """An octet string's value (g110-g113): ``bytes`` in every way, of a type of its own so
    that a JSON writer can tell it at once (the service writes it as hexadecimal text, and
    msgspec hands it to an ``enc_hook`` instead of writing base64, D236)."""

    __slots__ = ()


class DnpObject(msgspec.Struct, gc=False):
    """One decoded object: a point's value, an event, a command, a time, an attribute...

    ``flags`` lists are shared between objects with the same flags octet (one cached list per
    octet and point type): treat them as read-only. Nothing a DnpObject holds refers back to
    one, so it is left out of the garbage collector's tracking (``gc=False``).
    """

    type: str | None
    group: int
    variation: int
    index: int | None
    name: str | None
    value: Value
    flags: list[str] | None
    time_ms: int | None
    synchronized: bool | None
    event: bool


# The dataclass metadata (__dataclass_fields__) only, nothing generated: orjson then writes a
# DnpObject as the dataclass it was, pydantic derives its JSON Schema, dataclasses.fields()
# lists its fields; msgspec still takes its own, faster, Struct path.
dataclasses.dataclass(init=False, repr=False, eq=False, match_args=False)(DnpObject)


@dataclass(slots=True)
class Crob:
    """Control relay output block (g12v1) and pattern control block (g12v2).

    ``op`` names the control code (``LATCH_ON``, ``TRIP_PULSE_ON|CLEAR``...); ``status`` is a
    command status name (``SUCCESS``, ``NO_SELECT``...). The encoder reads ``code`` and ignores
    ``op``.
    """

    code: int
    op: str
    count: int
    on_ms: int
    off_ms: int
    status: str


@dataclass(slots=True)
class AnalogCommand:
    """Analog output command (g41) or analog output command event (g43): the value and the
    command status by name."""

    value: int | float
    status: str


@dataclass(slots=True)
class CommandEvent:
    """Binary output command event (g13): the commanded state and the command status."""

    state: bool
    status: str


@dataclass(slots=True)
class TimeAndInterval:
    """g50v2 (absolute time and interval, milliseconds) and g50v4 (indexed absolute time and
    long interval: a count of ``units``, named as IEEE 1815-2012 names them)."""

    time_ms: int
    interval: int
    units: str


@dataclass(slots=True)
class AttributeEntry:
    """One entry of a g0v255 list of attribute variations."""

    variation: int
    properties: int  # bit 0: the master may write the attribute


@dataclass(slots=True)
class Attribute:
    """A device attribute (g0): data type by name and the value it carries.

    Data types: VSTR (str), UINT and INT (int), FLT (float), OSTR and BSTR (bytes), TIME (ms
    since the epoch, int), LIST and EXTLIST (list of :class:`AttributeEntry`).
    """

    data_type: str
    value: str | int | float | bytes | list[AttributeEntry]


@dataclass(slots=True)
class FileAuthentication:
    """g70v2."""

    user_name: str
    password: str
    auth_key: int


@dataclass(slots=True)
class FileCommand:
    """g70v3 (open, delete, ...): ``mode`` 0 null, 1 read, 2 write, 3 append."""

    file_name: str
    created_ms: int
    permissions: int
    auth_key: int
    file_size: int
    mode: int
    max_block_size: int
    request_id: int


@dataclass(slots=True)
class FileCommandStatus:
    """g70v4: ``status`` is a file status name (SUCCESS, FILE_NOT_FOUND...)."""

    file_handle: int
    file_size: int
    max_block_size: int
    request_id: int
    status: str
    text: str


@dataclass(slots=True)
class FileTransport:
    """g70v5: one block of a file; ``last`` is bit 31 of the block number."""

    file_handle: int
    block: int
    last: bool
    data: bytes


@dataclass(slots=True)
class FileTransportStatus:
    """g70v6."""

    file_handle: int
    block: int
    last: bool
    status: str
    text: str


@dataclass(slots=True)
class FileDescriptor:
    """g70v7: ``file_type`` 0 directory, 1 simple file."""

    file_name: str
    file_type: int
    file_size: int
    created_ms: int
    permissions: int
    request_id: int


# What an object's ``value`` may hold.
Value: TypeAlias = (
    bool
    | int
    | float
    | str
    | bytes
    | Crob
    | AnalogCommand
    | CommandEvent
    | TimeAndInterval
    | Attribute
    | FileAuthentication
    | FileCommand
    | FileCommandStatus
    | FileTransport
    | FileTransportStatus
    | FileDescriptor
)
