"""The frames sent to and received from one outstation, as the ``trace`` and ``capture``
operations show them.

:class:`FrameLog` keeps the last ``limit`` frames, each a :class:`FrameRecord` with an id that
only grows (1 first; it keeps growing after :meth:`FrameLog.clear`), the octets as they
crossed the wire, and a one-line reading of them::

    sent PRI UNCONFIRMED_USER_DATA 1->1024 | TR FIR FIN seq=5 | AL READ seq=3 FIR FIN
    received SEC ... | AL RESPONSE seq=3 FIR FIN CON | IIN DEVICE_RESTART NEED_TIME
    received dropped 12 octets: bad header CRC

What the master itself writes is logged as written, deviations included: octets that are not
one good frame (a corrupt CRC, a cut frame, several frames in one write) are read as far as
their header goes and the summary says what is wrong with them.

:meth:`FrameLog.pcap` wraps the frames kept in Ethernet/IPv4/TCP framing with valid checksums
(:mod:`gridwire.capture`), so Wireshark and tshark read the file.
"""

from __future__ import annotations

import base64
import struct
from collections import deque
from typing import Final, Literal

from gridwire.capture import Direction, Endpoint, build_pcap
from gridwire.dnp3.app import control as app
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.link import (
    DIR,
    FUNCTION_MASK,
    HEADER_SIZE,
    PRM,
    START,
    Dropped,
    LinkFrame,
    LinkReader,
    PrimaryFunction,
    SecondaryFunction,
)
from gridwire.dnp3.transport import FIN, FIR, SEQ_MASK
from gridwire.master.records import CaptureResult, FrameRecord

_HEADER_FIELDS: Final = struct.Struct("<BBHH")

DEFAULT_MASTER: Final[Endpoint] = ("127.0.0.1", 49152)
DEFAULT_OUTSTATION: Final[Endpoint] = ("127.0.0.1", 20000)


def _function_name(control: int) -> str:
    code = control & FUNCTION_MASK
    try:
        if control & PRM:
            return PrimaryFunction(code).name
        return SecondaryFunction(code).name
    except ValueError:
        return f"FUNCTION_{code}"


def _transport_text(octet: int) -> str:
    flags = (" FIR" if octet & FIR else "") + (" FIN" if octet & FIN else "")
    return f" | TR{flags} seq={octet & SEQ_MASK}"


def _control_text(octet: int) -> str:
    bits = ((app.FIR, " FIR"), (app.FIN, " FIN"), (app.CON, " CON"), (app.UNS, " UNS"))
    return f"seq={octet & app.SEQ}" + "".join(name for bit, name in bits if octet & bit)


def _app_function_text(code: int) -> str:
    try:
        return FunctionCode(code).name
    except ValueError:
        return f"FUNCTION_0x{code:02X}"


# Every octet read once, at import: a frame's summary is a few table lookups (the trace sees
# every frame of a 9000-point poll).
_TRANSPORT: Final = tuple(_transport_text(octet) for octet in range(256))
_CONTROL: Final = tuple(_control_text(octet) for octet in range(256))
_FUNCTION: Final = tuple(_app_function_text(code) for code in range(256))
_LINK_FUNCTION: Final = tuple(
    _function_name((PRM if primary else 0) | code)
    for primary in (False, True)
    for code in range(16)
)
_IIN_TEXT: dict[int, str] = {}


def _link_function(frame: LinkFrame) -> str:
    return _LINK_FUNCTION[(16 if frame.prm else 0) | (frame.function & FUNCTION_MASK)]


def _iin_text(iin1: int, iin2: int) -> str:
    key = iin2 << 8 | iin1
    text = _IIN_TEXT.get(key)
    if text is None:
        names = IIN.from_octets(iin1, iin2).names
        text = _IIN_TEXT[key] = " | IIN " + (" ".join(names) if names else "-")
    return text


def _app_summary(data: bytes) -> str:
    """The transport header, and the application header when this segment starts a
    fragment."""
    if not data:
        return ""
    tr = data[0]
    text = _TRANSPORT[tr]
    if not tr & FIR or len(data) < 3:
        return text
    code = data[2]
    text += f" | AL {_FUNCTION[code]} {_CONTROL[data[1]]}"
    if code >= FunctionCode.RESPONSE and len(data) >= 5:
        text += _iin_text(data[3], data[4])
    return text


def _frame_summary(direction: str, frame: LinkFrame, function: str) -> str:
    role = "PRI" if frame.prm else "SEC"
    return (
        f"{direction} {role} {function} {frame.source}->{frame.destination}"
        f"{_app_summary(frame.data)}"
    )


class FrameLog:
    """The last ``limit`` frames of one outstation, oldest first."""

    __slots__ = ("_frames", "_next", "limit")

    def __init__(self, limit: int = 10_000) -> None:
        if limit < 1:
            raise ValueError(f"a frame log holds at least one frame, not {limit}")
        self.limit = limit
        self._frames: deque[tuple[FrameRecord, bytes]] = deque(maxlen=limit)
        self._next = 1

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def last_id(self) -> int:
        """The id of the latest frame logged (0 before any)."""
        return self._next - 1

    def _add(self, record: FrameRecord, raw: bytes) -> FrameRecord:
        self._frames.append((record, raw))
        self._next += 1
        return record

    def add_sent(self, octets: bytes, time_ms: float) -> FrameRecord:
        """Log octets the master wrote (normally one frame; see the module's note on
        deviations)."""
        items = LinkReader().feed(octets)
        if len(items) == 1 and isinstance(items[0], LinkFrame):
            return self._frame("sent", items[0], time_ms)
        return self._add(self._unreadable_sent(octets, items, time_ms), octets)

    def _frame(
        self, direction: Literal["sent", "received"], frame: LinkFrame, time_ms: float
    ) -> FrameRecord:
        function = _link_function(frame)
        record = FrameRecord(
            self._next,
            time_ms,
            direction,
            frame.raw.hex(),
            _frame_summary(direction, frame, function),
            frame.source,
            frame.destination,
            function,
        )
        return self._add(record, frame.raw)

    def _unreadable_sent(
        self, octets: bytes, items: list[LinkFrame | Dropped], time_ms: float
    ) -> FrameRecord:
        problems = [item.reason for item in items if isinstance(item, Dropped)]
        frames = sum(1 for item in items if isinstance(item, LinkFrame))
        if frames > 1 and not problems:
            problems.append(f"{frames} frames in one write")
        elif frames and problems:
            problems.append(f"and {frames} good frame(s)")
        source = destination = None
        function = None
        summary = "sent"
        if len(octets) >= 8 and octets[:2] == START:
            length, control, destination, source = _HEADER_FIELDS.unpack_from(octets, 2)
            function = _function_name(control)
            role = "PRI" if control & PRM else "SEC"
            direction_bit = "" if control & DIR else " DIR=0"
            summary += f" {role} {function} {source}->{destination} LEN={length}{direction_bit}"
            if len(octets) > HEADER_SIZE + 2:
                summary += _app_summary(octets[HEADER_SIZE : HEADER_SIZE + 3])
        if not problems:
            problems.append(f"incomplete frame ({len(octets)} octets)")
        summary += " | not a good frame: " + "; ".join(problems)
        return FrameRecord(
            id=self._next,
            time_ms=time_ms,
            direction="sent",
            hex=octets.hex(),
            summary=summary,
            source=source,
            destination=destination,
            link_function=function,
        )

    def add_received(self, item: LinkFrame | Dropped, time_ms: float) -> FrameRecord:
        """Log a frame the link reader gave, or octets it dropped."""
        if isinstance(item, Dropped):
            octets = item.octets
            record = FrameRecord(
                id=self._next,
                time_ms=time_ms,
                direction="received",
                hex=octets.hex(),
                summary=f"received dropped {len(octets)} octets: {item.reason}",
                dropped=item.reason,
            )
            return self._add(record, octets)
        return self._frame("received", item, time_ms)

    def after(self, after: int = 0) -> list[FrameRecord]:
        """The frames kept with an id greater than ``after``, oldest first."""
        return [record for record, _ in self._kept(after)]

    def _kept(self, after: int) -> list[tuple[FrameRecord, bytes]]:
        if after <= 0:
            return list(self._frames)
        out: list[tuple[FrameRecord, bytes]] = []
        for entry in reversed(self._frames):
            if entry[0].id <= after:
                break
            out.append(entry)
        out.reverse()
        return out

    def clear(self) -> int:
        """Forget every frame kept (ids go on growing); the number forgotten."""
        count = len(self._frames)
        self._frames.clear()
        return count

    def pcap(
        self,
        after: int = 0,
        master: Endpoint = DEFAULT_MASTER,
        outstation: Endpoint = DEFAULT_OUTSTATION,
    ) -> CaptureResult:
        """The frames kept with an id greater than ``after`` as a pcap file (base64 text) of
        one TCP connection between ``master`` and ``outstation`` (IP literals and ports)."""
        kept = self._kept(after)
        frames = [
            (
                Direction.TO_OUTSTATION if record.direction == "sent" else Direction.TO_MASTER,
                raw,
                round(record.time_ms * 1000),  # microseconds
            )
            for record, raw in kept
        ]
        data = build_pcap(master, outstation, frames)
        return CaptureResult(pcap=base64.b64encode(data).decode("ascii"), frames=len(frames))
