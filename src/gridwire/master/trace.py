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
from collections.abc import Iterator
from itertools import islice
from typing import Final, Literal

from gridwire.capture import Direction, Endpoint, build_pcap
from gridwire.dnp3.app import control as app
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.errors import DecodeError
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
    parse_frame,
)
from gridwire.dnp3.transport import FIN, FIR, SEQ_MASK
from gridwire.master.records import CaptureResult, FrameRecord
from gridwire.master.trace_budget import FRAME_OVERHEAD, TraceBudget

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


def _good_frame(
    frame_id: int, direction: Literal["sent", "received"], raw: bytes, time_ms: float
) -> FrameRecord:
    """The record of a frame known to be whole and good, read from its header and the first
    octets of its first data block (what the transport and application headers need)."""
    length, control, destination, source = _HEADER_FIELDS.unpack_from(raw, 2)
    primary = control & PRM
    function = _LINK_FUNCTION[(16 if primary else 0) | (control & FUNCTION_MASK)]
    heads = raw[HEADER_SIZE : HEADER_SIZE + min(5, length - 5)]
    summary = (
        f"{direction} {'PRI' if primary else 'SEC'} {function} {source}->{destination}"
        f"{_app_summary(heads)}"
    )
    return FrameRecord(
        frame_id, time_ms, direction, raw.hex(), summary, source, destination, function
    )


class FrameLog:
    """The last ``limit`` frames of one outstation, oldest first.

    A frame is logged as its octets, its time, which way it went and, for octets received
    that were not a frame, why; its :class:`FrameRecord` (hex text, summary, link fields) is
    built when asked for (:meth:`record`, :meth:`after`). A 9000-point integrity poll logs
    about 170 frames that nobody may read: building their records as they pass would cost
    more than the link layer does, and 10,000 records kept would be 10,000 more objects for
    the garbage collector to trace. The record built later is the one that would have been
    built at once: it depends on nothing but what is kept.
    """

    __slots__ = (
        "_budget",
        "_bytes",
        "_next",
        "_notes",
        "_raws",
        "_sent",
        "_times",
        "dropped",
        "limit",
        "queued",
    )

    def __init__(self, limit: int = 10_000, budget: TraceBudget | None = None) -> None:
        if limit < 1:
            raise ValueError(f"a frame log holds at least one frame, not {limit}")
        self.limit = limit
        # Side by side, one entry per frame; ids are consecutive, the last entry's being
        # last_id. A note is None for a good frame, the reason for octets received that
        # were not one, or the record of octets written that were not one good frame (a
        # deviation), which is built at once.
        self._raws: deque[bytes] = deque()
        self._times: deque[float] = deque()
        self._sent: deque[bool] = deque()
        self._notes: deque[str | FrameRecord | None] = deque()
        self._next = 1
        # The process-wide budget (D147): the bytes this log counts against it, and the
        # frames it dropped for room (its own cap or the budget) since it was made.
        self._budget = budget
        self._bytes = 0
        self.dropped = 0
        self.queued = False  # the budget's mark

    def __len__(self) -> int:
        return len(self._raws)

    @property
    def last_id(self) -> int:
        """The id of the latest frame logged (0 before any)."""
        return self._next - 1

    @property
    def first_id(self) -> int:
        """The id of the oldest frame kept (``last_id + 1`` when none is)."""
        return self._next - len(self._raws)

    def gone(self, after: int) -> int:
        """Frames with an id greater than ``after`` that are no longer kept (dropped for
        room, or forgotten by :meth:`clear`)."""
        return max(0, self.first_id - 1 - max(after, 0))

    def _log(self, raw: bytes, time_ms: float, sent: bool, note: str | FrameRecord | None) -> int:
        if len(self._raws) >= self.limit:
            cost = self.drop_oldest()
            if self._budget is not None:
                self._budget.released(cost)
        self._raws.append(raw)
        self._times.append(time_ms)
        self._sent.append(sent)
        self._notes.append(note)
        self._next += 1
        cost = len(raw) + FRAME_OVERHEAD
        self._bytes += cost
        if self._budget is not None:
            self._budget.logged(self, cost)
        return self._next - 1

    def oldest_time(self) -> float | None:
        """The time of the oldest frame kept, None when none is (for the budget)."""
        return self._times[0] if self._times else None

    def drop_oldest(self) -> int:
        """Forget the oldest frame for room (the cap or the budget); its cost in bytes."""
        raw = self._raws.popleft()
        self._times.popleft()
        self._sent.popleft()
        self._notes.popleft()
        cost = len(raw) + FRAME_OVERHEAD
        self._bytes -= cost
        self.dropped += 1
        return cost

    def log_sent(self, octets: bytes, time_ms: float, *, framed: bool = False) -> int:
        """Log octets the master wrote (normally one frame; see the module's note on
        deviations); returns the frame's id. ``framed``: the octets are one frame the link
        layer made (no deviation touched them), so they are not read again to know it."""
        if framed:
            return self._log(octets, time_ms, True, None)
        try:
            parse_frame(octets)
        except DecodeError:
            items = LinkReader().feed(octets)  # not exactly one good frame: read it so
            if len(items) == 1 and isinstance(items[0], LinkFrame):
                return self._log(items[0].raw, time_ms, True, None)
            record = self._unreadable_sent(self._next, octets, items, time_ms)
            return self._log(octets, time_ms, True, record)
        return self._log(bytes(octets), time_ms, True, None)

    def log_received(self, item: LinkFrame | Dropped, time_ms: float) -> int:
        """Log a frame the link reader gave, or octets it dropped; returns its id."""
        if isinstance(item, Dropped):
            return self._log(item.octets, time_ms, False, item.reason)
        return self._log(item.raw, time_ms, False, None)

    def add_sent(self, octets: bytes, time_ms: float) -> FrameRecord:
        """:meth:`log_sent`, returning the frame's record."""
        return self.record(self.log_sent(octets, time_ms))

    def add_received(self, item: LinkFrame | Dropped, time_ms: float) -> FrameRecord:
        """:meth:`log_received`, returning the frame's record."""
        return self.record(self.log_received(item, time_ms))

    def record(self, frame_id: int) -> FrameRecord:
        """The record of a frame still kept (KeyError for another id)."""
        position = frame_id - (self._next - len(self._raws))
        if not 0 <= position < len(self._raws):
            raise KeyError(f"frame {frame_id} is not kept")
        return self._record(
            frame_id,
            self._raws[position],
            self._times[position],
            self._sent[position],
            self._notes[position],
        )

    @staticmethod
    def _record(
        frame_id: int, raw: bytes, time_ms: float, sent: bool, note: str | FrameRecord | None
    ) -> FrameRecord:
        if isinstance(note, FrameRecord):
            return note
        if note is not None:
            return FrameRecord(
                id=frame_id,
                time_ms=time_ms,
                direction="received",
                hex=raw.hex(),
                summary=f"received dropped {len(raw)} octets: {note}",
                dropped=note,
            )
        return _good_frame(frame_id, "sent" if sent else "received", raw, time_ms)

    @staticmethod
    def _unreadable_sent(
        frame_id: int, octets: bytes, items: list[LinkFrame | Dropped], time_ms: float
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
            id=frame_id,
            time_ms=time_ms,
            direction="sent",
            hex=octets.hex(),
            summary=summary,
            source=source,
            destination=destination,
            link_function=function,
        )

    def _entries(
        self, after: int
    ) -> Iterator[tuple[int, bytes, float, bool, str | FrameRecord | None]]:
        """(id, octets, time, sent, note) of the frames kept with an id above ``after``."""
        first = self._next - len(self._raws)
        skip = min(max(after - first + 1, 0), len(self._raws))
        columns = (self._raws, self._times, self._sent, self._notes)
        kept = zip(*(islice(column, skip, None) for column in columns), strict=True)
        for frame_id, entry in enumerate(kept, first + skip):
            yield (frame_id, *entry)

    def after(self, after: int = 0) -> list[FrameRecord]:
        """The frames kept with an id greater than ``after``, oldest first."""
        return [self._record(*entry) for entry in self._entries(after)]

    def clear(self) -> int:
        """Forget every frame kept (ids go on growing); the number forgotten."""
        count = len(self._raws)
        for column in (self._raws, self._times, self._sent, self._notes):
            column.clear()
        if self._budget is not None:
            self._budget.released(self._bytes)
        self._bytes = 0
        return count

    def close(self) -> None:
        """Forget every frame for good (the outstation is removed): its bytes go back to the
        budget, and its place in the budget's heap is given up."""
        self.clear()
        if self._budget is not None:
            self._budget.closed()

    def pcap(
        self,
        after: int = 0,
        master: Endpoint = DEFAULT_MASTER,
        outstation: Endpoint = DEFAULT_OUTSTATION,
    ) -> CaptureResult:
        """The frames kept with an id greater than ``after`` as a pcap file (base64 text) of
        one TCP connection between ``master`` and ``outstation`` (IP literals and ports)."""
        frames = [
            (
                Direction.TO_OUTSTATION if sent else Direction.TO_MASTER,
                raw,
                round(time_ms * 1000),  # microseconds
            )
            for _, raw, time_ms, sent, _ in self._entries(after)
        ]
        data = build_pcap(master, outstation, frames)
        return CaptureResult(
            pcap=base64.b64encode(data).decode("ascii"),
            frames=len(frames),
            dropped=self.gone(after),
            dropped_for_room=self.dropped,
        )
