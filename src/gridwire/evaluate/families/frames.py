"""What the trace says about a deviation check's own traffic: which fragment each frame begins,
with what application sequence number and function.

A deviation check cannot always learn from its exchange what happened: a request it stopped
waiting for has no record of an answer that came late, and a response the master did not take
(a second answer to one request, or one to a request given up) reaches no caller. The trace
holds every frame sent and received, as it crossed the wire, so the checks read it.

Each frame is read from its octets at fixed places, its link header CRC not checked (a frame a
deviation broke on purpose still says which request it carries): octets 0-1 ``05 64``, octet 3
the link control (PRM set, function 3 or 4: user data), octet 10 the transport header (FIR:
the frame begins a fragment), 11 the application control (sequence number, CON, UNS), 12 the
function code. Frames that begin no fragment are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from gridwire.dnp3.app.control import CON, FIN, SEQ, UNS
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.link import FUNCTION_MASK, PRM, START
from gridwire.dnp3.transport import FIR
from gridwire.master.records import FrameRecord

_USER_DATA: Final = frozenset({3, 4})
_SMALLEST: Final = 13  # link header, transport header, application control and function


@dataclass(frozen=True, slots=True)
class Begun:
    """A frame that begins an application fragment: its trace id and time, whether the master
    sent or received it, and the fragment's sequence number, function code, CON, UNS and FIN
    (the fragment is a message's last)."""

    id: int
    time_ms: float
    sent: bool
    seq: int
    function: int
    con: bool
    uns: bool
    fin: bool

    @property
    def is_response(self) -> bool:
        """A solicited response (not an unsolicited one)."""
        return self.function == FunctionCode.RESPONSE and not self.uns

    @property
    def is_confirm(self) -> bool:
        """A confirmation of a solicited response."""
        return self.function == FunctionCode.CONFIRM and not self.uns


def begun(frame: FrameRecord) -> Begun | None:
    """The fragment ``frame`` begins, or None when it begins none (see the module's notes)."""
    octets = bytes.fromhex(frame.hex)
    if len(octets) < _SMALLEST or octets[:2] != START:
        return None
    control = octets[3]
    if not control & PRM or control & FUNCTION_MASK not in _USER_DATA:
        return None
    if not octets[10] & FIR:
        return None
    app = octets[11]
    return Begun(
        frame.id,
        frame.time_ms,
        frame.direction == "sent",
        app & SEQ,
        octets[12],
        bool(app & CON),
        bool(app & UNS),
        bool(app & FIN),
    )


def fragments(frames: Iterable[FrameRecord]) -> list[Begun]:
    """The fragments begun by ``frames``, in order."""
    found = (begun(frame) for frame in frames)
    return [item for item in found if item is not None]


def first_request(items: Iterable[Begun]) -> Begun | None:
    """The first request the master sent among ``items`` (a confirmation is not one)."""
    return next((i for i in items if i.sent and i.function != FunctionCode.CONFIRM), None)


def responses_to(items: Iterable[Begun], seq: int) -> list[Begun]:
    """The solicited responses received with sequence number ``seq``, in order."""
    return [i for i in items if not i.sent and i.is_response and i.seq == seq]


def confirms_of(items: Iterable[Begun], seq: int) -> list[Begun]:
    """The confirmations of solicited responses the master sent with sequence number ``seq``."""
    return [i for i in items if i.sent and i.is_confirm and i.seq == seq]
