"""The master's side of one association, sans-IO: octets in, records and octets out.

An :class:`Association` owns what both ends must agree on: the link addresses, the link
reader, the transport sequence of what the master sends and the reassembly of what it
receives, and the application sequence of requests. It keeps no timers (the session's
asyncio code does) and sends nothing itself: :meth:`receive` turns octets into records and
the link-layer answers they call for; :meth:`request` and :meth:`confirm` build the octets of
a fragment as the frames to write.

Only the header of a response fragment is read here (control, function, indications), so the
session can confirm a fragment before it spends time decoding its objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from gridwire.dnp3 import link, requests, transport
from gridwire.dnp3.app.control import CON as APP_CON
from gridwire.dnp3.app.control import FIN as APP_FIN
from gridwire.dnp3.app.control import FIR as APP_FIR
from gridwire.dnp3.app.control import SEQ as APP_SEQ
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.crc import crc_octets
from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.link import Dropped, LinkFrame, PrimaryFunction
from gridwire.dnp3.transport import Discarded, Reassembler
from gridwire.errors import BadParameter

_USER_DATA: Final = frozenset(
    {PrimaryFunction.UNCONFIRMED_USER_DATA, PrimaryFunction.CONFIRMED_USER_DATA}
)
_UNCONFIRMED: Final = PrimaryFunction.UNCONFIRMED_USER_DATA
_RESPONSES: Final = frozenset({int(FunctionCode.RESPONSE), int(FunctionCode.UNSOLICITED_RESPONSE)})
# Every CONFIRM fragment (16 sequence numbers, then the same with UNS), built once: one is
# sent for each fragment of a long response.
_CONFIRMS: Final = tuple(
    requests.confirm(seq, unsolicited=unsolicited)
    for unsolicited in (False, True)
    for seq in range(APP_SEQ + 1)
)
# The one data block of a CONFIRM's frame, with its CRC, by transport octet and application
# control (64 x 32 values at most, built as they are first needed and shared by every
# association): the frame is then the association's link header and one of these.
_CONFIRM_BLOCKS: dict[int, bytes] = {}
REQUEST_HEADER: Final = 2
"""Octets of a request fragment before its object data: application control, function code."""


@dataclass(slots=True)
class Fragment:
    """A response fragment received whole: its octets and its header read."""

    raw: bytes
    control: int
    function: int
    iin: IIN

    @property
    def seq(self) -> int:
        return self.control & APP_SEQ

    @property
    def fir(self) -> bool:
        return bool(self.control & APP_FIR)

    @property
    def fin(self) -> bool:
        return bool(self.control & APP_FIN)

    @property
    def con(self) -> bool:
        return bool(self.control & APP_CON)

    @property
    def unsolicited(self) -> bool:
        """An unsolicited response (function 0x82); its confirm carries UNS."""
        return self.function == FunctionCode.UNSOLICITED_RESPONSE


@dataclass(slots=True)
class Received:
    """What one chunk of octets completed, each list in stream order.

    ``frames``: every frame and every run of dropped octets (for the trace). ``fragments``:
    response fragments from the outstation. ``discarded``: segments or fragments thrown
    away, each as text saying why. ``replies``: link-layer frames the master must send back
    (LINK_STATUS, ACK). ``ignored``: good frames not between this master and this outstation.
    """

    frames: list[LinkFrame | Dropped] = field(default_factory=list)
    fragments: list[Fragment] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    replies: list[bytes] = field(default_factory=list)
    ignored: int = 0


@dataclass(slots=True)
class Outgoing:
    """A fragment to send: its application sequence, its octets, and its link frames."""

    seq: int
    fragment: bytes
    frames: list[bytes]


class Association:
    """The master's side of the association with one outstation."""

    __slots__ = (
        "_app_seq",
        "_confirm_head",
        "_fcb",
        "_reader",
        "_reassembler",
        "_tx_seq",
        "master",
        "max_request",
        "outstation",
    )

    def __init__(
        self,
        outstation: int = 1024,
        master: int = 1,
        max_fragment: int = 65536,
        max_request: int = transport.DEFAULT_MAX_FRAGMENT,
    ):
        for what, address in (("outstation", outstation), ("master", master)):
            if not 0 <= address <= 0xFFFF:
                raise EncodeError(f"{what} address {address} is outside 0..65535")
        self.outstation = outstation
        self.master = master
        # The largest request fragment the outstation takes (IEEE 1815's default is 2048).
        self.max_request = max_request
        self._reader = link.LinkReader()
        self._reassembler = Reassembler(max_fragment)
        self._tx_seq = 0
        self._app_seq = 0
        # The link header of every CONFIRM: UNCONFIRMED_USER_DATA from the master, LENGTH 8.
        self._confirm_head = link.encode_frame(
            PrimaryFunction.UNCONFIRMED_USER_DATA, outstation, master, b"\0\0\0", from_master=True
        )[: link.HEADER_SIZE]
        # The frame count bit the next confirmed frame from the outstation carries (None: not
        # known yet), so a frame repeated because our ACK was lost is acknowledged again but
        # not taken twice (a serial line's link retries; DESIGN D188).
        self._fcb: bool | None = None

    def reset(self) -> None:
        """A new connection: forget partial frames and fragments. Sequence numbers go on."""
        self._reader.reset()
        self._reassembler.reset()
        self._fcb = None

    # --- sending -------------------------------------------------------------------------

    @property
    def next_sequence(self) -> int:
        """The application sequence number the next request will carry."""
        return self._app_seq

    @property
    def request_room(self) -> int:
        """Octets of object data one request to the outstation can carry."""
        return self.max_request - REQUEST_HEADER

    def request(
        self,
        function: FunctionCode,
        body: bytes = b"",
        *,
        seq: int | None = None,
        destination: int | None = None,
    ) -> Outgoing:
        """A request fragment (FIR, FIN, no CON, no UNS) as link frames.

        Without ``seq`` it takes the next application sequence number and moves it on; a
        request sent again passes the number it was first sent with. ``destination`` sends
        to another link address (a broadcast address, say).

        RequestError, before anything is built or the sequence moves, for a request larger
        than ``max_request``: the outstation would throw it away."""
        if len(body) > self.request_room:
            raise BadParameter(
                f"a {function.name} request of {REQUEST_HEADER + len(body)} octets is larger "
                f"than the {self.max_request} the outstation takes (max_request_fragment); "
                "nothing was sent"
            )
        if seq is None:
            seq = self._app_seq
            self._app_seq = (seq + 1) & APP_SEQ
        fragment = requests.request(seq & APP_SEQ, function, body)
        return Outgoing(seq, fragment, self.frames(fragment, destination))

    def confirm(self, seq: int, *, unsolicited: bool) -> Outgoing:
        """The CONFIRM of a response fragment numbered ``seq`` (with UNS for an unsolicited
        one)."""
        fragment = _CONFIRMS[(seq & APP_SEQ) | (16 if unsolicited else 0)]
        # What frames(fragment) builds, from parts built once: a CONFIRM is sent for every
        # fragment of a long response, between its arrival and the outstation's next one.
        tx = self._tx_seq
        self._tx_seq = (tx + 1) & transport.SEQ_MASK
        key = (transport.FIR | transport.FIN | tx) << 8 | fragment[0]
        block = _CONFIRM_BLOCKS.get(key)
        if block is None:
            data = bytes((key >> 8, fragment[0], fragment[1]))
            block = _CONFIRM_BLOCKS[key] = data + crc_octets(data)
        return Outgoing(seq, fragment, [self._confirm_head + block])

    def frames(self, fragment: bytes, destination: int | None = None) -> list[bytes]:
        """``fragment`` cut into segments, each in an unconfirmed user data frame from the
        master; moves the transport sequence on."""
        tpdus, self._tx_seq = transport.segment(fragment, self._tx_seq)
        dest = self.outstation if destination is None else destination
        return [link.user_data(dest, self.master, t, from_master=True) for t in tpdus]

    # --- receiving -----------------------------------------------------------------------

    def receive(self, data: bytes) -> Received:
        """Everything ``data`` completes, with the stream's earlier octets."""
        out = Received()
        items = self._reader.feed(data)
        out.frames = items
        master, outstation = self.master, self.outstation
        for item in items:
            if not isinstance(item, LinkFrame):
                continue
            # The usual frame, an outstation's unconfirmed user data to this master, takes
            # no link answer: straight to the transport (what _frame would do, fewer steps).
            if (
                item.function is _UNCONFIRMED
                and item.prm
                and not item.dir
                and item.destination == master
                and item.source == outstation
            ):
                self._segment(item.data, out)
            else:
                self._frame(item, out)
        return out

    def _frame(self, frame: LinkFrame, out: Received) -> None:
        if frame.dir or frame.destination != self.master or frame.source != self.outstation:
            out.ignored += 1
            return
        if not frame.prm:
            return  # a secondary frame (ACK, LINK_STATUS): the master asks for none
        reply = link.reply_to(frame)
        if reply is not None:
            out.replies.append(reply)
        if frame.function not in _USER_DATA:
            if frame.function == PrimaryFunction.RESET_LINK_STATES:
                self._fcb = True  # the first confirmed frame after a reset carries FCB 1
            return
        if frame.function == PrimaryFunction.CONFIRMED_USER_DATA and frame.fcv:
            if self._fcb is not None and frame.fcb != self._fcb:
                out.discarded.append("a confirmed frame repeated (same FCB): acknowledged again")
                return
            self._fcb = not frame.fcb
        self._segment(frame.data, out)

    def _segment(self, tpdu: bytes, out: Received) -> None:
        """A transport segment from the outstation's user data frame."""
        result = self._reassembler.feed(tpdu)
        if result is None:
            return  # kept; the fragment goes on
        discard = self._reassembler.last_discard
        if discard is not None:
            out.discarded.append(f"{discard.reason} ({discard.octets} octets)")
        if isinstance(result, bytes):
            self._fragment(result, out)
        elif isinstance(result, Discarded) and result is not discard:
            out.discarded.append(f"{result.reason} ({result.octets} octets)")

    def _fragment(self, raw: bytes, out: Received) -> None:
        if len(raw) < 4:
            out.discarded.append(f"fragment of {len(raw)} octets is too short for a response")
            return
        function = raw[1]
        if function not in _RESPONSES:
            out.discarded.append(f"fragment with function 0x{function:02X} is not a response")
            return
        out.fragments.append(Fragment(raw, raw[0], function, IIN.from_octets(raw[2], raw[3])))
