"""Control requests (SELECT, OPERATE, DIRECT_OPERATE, DIRECT_OPERATE_NR): reading the
commands out of a request and echoing them back with a status each.

A control request carries CROBs (g12v1) and analog output commands (g41v1-4), index-prefixed
(qualifier 0x17, 0x28 or 0x39), in any number of headers. The response echoes the request's
object octets exactly as received, each object's status octet (its last) replaced by the
status decided for it, in request order (IEEE 1815-2012 4.4.3).
"""

from __future__ import annotations

from dataclasses import dataclass

from gridwire.dnp3.app.fragments import Request
from gridwire.dnp3.app.headers import INDEX_PREFIX
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.objects import records
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.outstation.controls import AnalogCommand, BinaryCommand, Command
from gridwire.outstation.encoding import object_size
from gridwire.outstation.refusal import Refused, unreadable

_COUNT_WIDTH = {0x7: 1, 0x8: 2, 0x9: 4}
COMMAND_OBJECTS = frozenset({(12, 1), (41, 1), (41, 2), (41, 3), (41, 4)})


@dataclass(slots=True)
class Commands:
    """The commands of a control request, the offset of each one's status octet in the
    request fragment, and the request's object octets (what a select and its operate must
    share)."""

    commands: list[Command]
    status_offsets: list[int]
    objects: bytes


def read_commands(request: Request) -> Commands:
    """The commands of a control request; Refused for anything but index-prefixed g12v1 and
    g41v1-4 objects, or a request the parser could not read to its end."""
    if request.undecoded:
        bad = request.undecoded[0]
        raise unreadable(bad.group, bad.variation, bad.reason)
    if not request.headers:
        raise Refused(IIN.PARAMETER_ERROR, "a control request with no objects")
    commands: list[Command] = []
    offsets: list[int] = []
    for header in request.headers:
        key = (header.group, header.variation)
        if key not in COMMAND_OBJECTS:
            raise Refused(
                IIN.OBJECT_UNKNOWN, f"g{key[0]}v{key[1]} is not a control this outstation takes"
            )
        width = INDEX_PREFIX.get(header.prefix_code)
        count_width = _COUNT_WIDTH.get(header.range_code)
        if width is None or count_width is None:
            raise Refused(
                IIN.PARAMETER_ERROR,
                f"controls come index-prefixed, not with qualifier 0x{header.qualifier:02X}",
            )
        size, _ = object_size(*key)
        first = header.offset + 3 + count_width
        for n, obj in enumerate(header.objects):
            offsets.append(first + n * (width + size) + width + size - 1)
            commands.append(_command(obj))
    return Commands(commands, offsets, request.raw[2:])


def _command(obj: records.DnpObject) -> Command:
    index = obj.index if obj.index is not None else 0
    value = obj.value
    if isinstance(value, records.Crob):
        return BinaryCommand(index, value.code, value.count, value.on_ms, value.off_ms)
    if isinstance(value, records.AnalogCommand):
        return AnalogCommand(index, value.value, obj.variation)
    raise Refused(IIN.PARAMETER_ERROR, f"g{obj.group}v{obj.variation} is not a command")


def echo(request: Request, commands: Commands, statuses: list[CommandStatus]) -> bytes:
    """The response's object octets: the request's, each status octet replaced."""
    raw = bytearray(request.raw)
    for offset, status in zip(commands.status_offsets, statuses, strict=True):
        raw[offset] = int(status) & 0x7F
    return bytes(raw[2:])
