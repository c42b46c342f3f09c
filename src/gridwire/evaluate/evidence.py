"""The evidence of a check: the frames of its trace range, decoded layer by layer.

Each frame the master sent or received between a check's first and last trace ids becomes a
:class:`FrameEvidence`: its link layer (primary or secondary, function, addresses, length,
control bits), its transport header (FIR, FIN, sequence) and, on the frame that begins an
application fragment, the application layer (control, function, indications, objects) of
the whole fragment once its last segment has been seen. A frame that could not be read as
one (octets received and dropped, or a frame a deviation broke on purpose) says why. With a
capture of the run, each frame has its packet number in the pcap.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gridwire.dnp3.app.fragments import parse_request, parse_response
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.link import parse_frame
from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import FrameRecord

OBJECTS_SHOWN = 64
"""Objects listed per fragment at most (the rest are counted)."""


@dataclass(slots=True)
class FrameEvidence:
    id: int
    packet: int | None
    direction: str
    time: str
    hex: str
    link: str
    transport: str | None = None
    application: str | None = None
    objects: list[str] = field(default_factory=list)
    problem: str | None = None


def _time(time_ms: float) -> str:
    moment = datetime.fromtimestamp(time_ms / 1000.0, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _value_text(value: object) -> str:
    if isinstance(value, bytes):
        return value.hex()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return ", ".join(f"{f.name} {_value_text(getattr(value, f.name))}" for f in fields)
    return str(value)


def _object_text(obj: DnpObject) -> str:
    where = f"g{obj.group}v{obj.variation}"
    point = " ".join(str(p) for p in (obj.type, obj.index) if p is not None)
    point = f" {point}" if point else ""
    value = _value_text(obj.value)
    flags = f" [{', '.join(obj.flags) or 'no flags set'}]" if obj.flags is not None else ""
    event = " event" if obj.event else ""
    return f"{where}{point} = {value}{flags}{event}"


def _application(fragment: bytes, sent: bool) -> tuple[str, list[str]]:
    parsed = parse_request(fragment) if sent else parse_response(fragment)
    control = parsed.control
    bits = "".join(
        name
        for name, on in (
            ("FIR ", control.fir),
            ("FIN ", control.fin),
            ("CON ", control.con),
            ("UNS ", control.uns),
        )
        if on
    )
    text = f"{parsed.function.name} {bits}SEQ={control.seq}"
    if not sent:
        iin = parsed.iin.names  # type: ignore[union-attr]
        text += f" IIN {', '.join(iin) or 'none'}"
    headers = ", ".join(f"g{h.group}v{h.variation} q{h.qualifier:#04x}" for h in parsed.headers)
    if headers:
        text += f"; headers {headers}"
    objects = [_object_text(o) for o in parsed.objects[:OBJECTS_SHOWN]]
    if len(parsed.objects) > OBJECTS_SHOWN:
        objects.append(f"... and {len(parsed.objects) - OBJECTS_SHOWN} more objects")
    objects.extend(f"undecoded at {u.offset}: {u.reason}" for u in parsed.undecoded)
    return text, objects


def decode(
    frames: Iterable[FrameRecord], packet_of: Callable[[int], int | None] | None = None
) -> list[FrameEvidence]:
    """The frames decoded layer by layer (see the module's notes)."""
    found: list[FrameEvidence] = []
    pending: dict[str, tuple[int, bytearray]] = {}  # direction -> (evidence index, octets)
    for record in frames:
        item = FrameEvidence(
            id=record.id,
            packet=packet_of(record.id) if packet_of is not None else None,
            direction=record.direction,
            time=_time(record.time_ms),
            hex=record.hex,
            link="",
        )
        found.append(item)
        if record.dropped is not None:
            item.problem = f"not a frame: {record.dropped}"
            continue
        try:
            frame = parse_frame(bytes.fromhex(record.hex))
        except DecodeError as exc:
            item.problem = f"not a good frame ({exc}): {record.summary}"
            continue
        role = "PRI" if frame.prm else "SEC"
        item.link = (
            f"{role} {frame.function_name} {frame.source}->{frame.destination} "
            f"LEN={len(frame.data) + 5} DIR={int(frame.dir)} "
            f"{'FCB' if frame.prm else 'DFC'}={int(frame.fcb if frame.prm else frame.fcv)}"
        )
        if not frame.data:
            continue
        octet = frame.data[0]
        fir, fin = bool(octet & 0x40), bool(octet & 0x80)
        item.transport = f"FIR={int(fir)} FIN={int(fin)} SEQ={octet & 0x3F}"
        direction = record.direction
        if fir:
            pending[direction] = (len(found) - 1, bytearray(frame.data[1:]))
        elif direction in pending:
            pending[direction][1].extend(frame.data[1:])
        else:
            item.problem = "a segment with no first segment before it"
            continue
        if fin and direction in pending:
            index, octets = pending.pop(direction)
            first = found[index]
            try:
                first.application, first.objects = _application(bytes(octets), direction == "sent")
            except DecodeError as exc:
                first.problem = f"application fragment not readable: {exc}"
    return found
