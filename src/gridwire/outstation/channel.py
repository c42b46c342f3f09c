"""The outstation's side of the link layer and the transport function, sans-IO.

Octets from the master go in; application fragments (with the address they were sent to) and
the link layer's own answers come out. Fragments to send go in and leave as link frames.

Link rules kept here (IEEE 1815-2012 clause 9): a frame is taken only when its DIR bit says
it came from a master, its source is the configured master address and its destination is
this outstation or a broadcast address (0xFFFD-0xFFFF); a primary link service
(REQUEST_LINK_STATUS, RESET_LINK_STATES, TEST_LINK_STATES, CONFIRMED_USER_DATA) sent to this
outstation is answered by :func:`gridwire.dnp3.link.reply_to`; nothing sent to a broadcast
address is answered at the link layer. Frames that are not taken are counted in
:attr:`Channel.ignored`, with the reason of the latest. ``accept_bad_crc`` breaks the CRC rule
on purpose (:mod:`gridwire.outstation.misbehaviour`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gridwire.dnp3.link import (
    Dropped,
    LinkFrame,
    LinkReader,
    PrimaryFunction,
    reply_to,
    user_data,
)
from gridwire.dnp3.transport import Discarded, Reassembler, segment
from gridwire.outstation.misbehaviour import mend_crcs

BROADCAST_ADDRESSES: Final = frozenset({0xFFFD, 0xFFFE, 0xFFFF})
_USER_DATA: Final = frozenset(
    {PrimaryFunction.UNCONFIRMED_USER_DATA, PrimaryFunction.CONFIRMED_USER_DATA}
)


@dataclass(slots=True)
class Received:
    """A whole application fragment from the master; ``broadcast`` is the broadcast address
    it was sent to, or None when it was addressed to this outstation."""

    fragment: bytes
    broadcast: int | None


class Channel:
    """Link and transport state of one connection to the master."""

    def __init__(
        self,
        outstation_address: int,
        master_address: int,
        max_fragment: int,
        *,
        accept_bad_crc: bool = False,
    ) -> None:
        self.outstation_address = outstation_address
        self.master_address = master_address
        self._reader = LinkReader()
        self._reassembler = Reassembler(max_fragment)
        self._broadcast: int | None = None
        self._send_seq = 0
        self._accept_bad_crc = accept_bad_crc
        self.ignored = 0
        self.last_ignored: str | None = None

    def reset(self) -> None:
        """A new connection: forget partial frames and fragments; sequences start again."""
        self._reader.reset()
        self._reassembler.reset()
        self._broadcast = None
        self._send_seq = 0

    def receive(self, data: bytes) -> tuple[list[Received], list[bytes]]:
        """The fragments these octets complete and the link frames to send back at once."""
        fragments: list[Received] = []
        replies: list[bytes] = []
        if self._accept_bad_crc:
            data = mend_crcs(data)
        for item in self._reader.feed(data):
            if isinstance(item, Dropped):
                self._ignore(f"dropped octets: {item.reason}")
                continue
            self._frame(item, fragments, replies)
        return fragments, replies

    def _frame(self, frame: LinkFrame, fragments: list[Received], replies: list[bytes]) -> None:
        if not frame.dir or not frame.prm:
            self._ignore("not a primary frame from a master")
            return
        broadcast = frame.destination if frame.destination in BROADCAST_ADDRESSES else None
        if frame.destination != self.outstation_address and broadcast is None:
            self._ignore(f"frame for address {frame.destination}")
            return
        if frame.source != self.master_address:
            self._ignore(f"frame from address {frame.source}, not the master's")
            return
        if broadcast is None:
            reply = reply_to(frame)
            if reply is not None:
                replies.append(reply)
        if frame.function not in _USER_DATA or not frame.data:
            return
        result = self._reassembler.feed(frame.data)
        if frame.data[0] & 0x40:  # FIR: the fragment's address is its first segment's
            self._broadcast = broadcast
        if isinstance(result, bytes):
            fragments.append(Received(result, self._broadcast))
        elif isinstance(result, Discarded):
            self._ignore(f"transport: {result.reason}")

    def _ignore(self, reason: str) -> None:
        self.ignored += 1
        self.last_ignored = reason

    def send(self, fragment: bytes) -> list[bytes]:
        """The link frames (unconfirmed user data) that carry one application fragment."""
        tpdus, self._send_seq = segment(fragment, self._send_seq)
        return [
            user_data(self.master_address, self.outstation_address, tpdu, from_master=False)
            for tpdu in tpdus
        ]
