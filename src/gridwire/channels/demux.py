"""Several outstations on one channel, sans-IO: octets in, each frame to its outstation.

The octets a channel receives are cut into link frames (:class:`~gridwire.dnp3.link.LinkReader`)
and each frame goes, as its own octets, to the outstation whose link address is the frame's
source (DESIGN D185): a solicited response, an unsolicited one or a link-layer frame alike.
A frame from an address no outstation on the channel has is dropped, and logged at most once
a minute per channel (a noisy line must not fill the log); frames sent by a master (DIR set:
our own requests echoed by an RS-485 line, or another master's) are dropped unlogged; runs of
octets that are no frame are counted.

Serial timing: octets that arrive after a silence longer than the inter-character timeout,
while a frame is half read, begin anew: the partial frame is thrown away (counted).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Final

from gridwire.dnp3.link import Dropped, LinkFrame, LinkReader

UNKNOWN_LOG_INTERVAL: Final = 60.0
"""Seconds between two log lines about frames from unknown addresses."""


@dataclass(slots=True)
class Routed:
    """What one chunk of octets completed: frames by the outstation address they go to,
    frames nobody on the channel takes, and whether an unknown address is to be logged now."""

    frames: list[tuple[int, bytes]] = field(default_factory=list)
    unknown: list[LinkFrame] = field(default_factory=list)
    log_unknown: bool = False


@dataclass(slots=True)
class Counts:
    """What the channel received that went to no outstation."""

    unknown_frames: int = 0
    unattached_frames: int = 0
    last_unknown_address: int | None = None
    echoed_frames: int = 0
    dropped_octets: int = 0
    partial_frames: int = 0


class Demux:
    """Routes the frames of one channel by their source address."""

    __slots__ = ("_last_octet", "_logged_at", "_reader", "counts", "inter_character")

    def __init__(self, inter_character: float | None = None) -> None:
        self.inter_character = inter_character
        self.counts = Counts()
        self._reader = LinkReader()
        self._last_octet: float | None = None
        self._logged_at: float | None = None

    def reset(self) -> None:
        """A new connection: forget a partial frame."""
        self._reader.reset()
        self._last_octet = None

    def feed(
        self,
        data: bytes,
        now: float,
        addresses: Collection[int],
        known: Collection[int] = (),
    ) -> Routed:
        """The frames ``data`` completes, routed to the outstations in ``addresses`` (those
        connected); a frame from one of ``known`` (added, not connected) is dropped unlogged."""
        out = Routed()
        self._gap(now)
        self._last_octet = now
        for item in self._reader.feed(data):
            if isinstance(item, Dropped):
                self.counts.dropped_octets += len(item.octets)
            elif item.dir:
                self.counts.echoed_frames += 1
            elif item.source in addresses:
                out.frames.append((item.source, item.raw))
            elif item.source in known:
                self.counts.unattached_frames += 1
            else:
                self._unknown(item, now, out)
        return out

    def _gap(self, now: float) -> None:
        """A silence longer than the inter-character timeout inside a frame ends it."""
        limit, last = self.inter_character, self._last_octet
        if limit is None or last is None or now - last <= limit:
            return
        if self._reader.pending:
            self.counts.partial_frames += 1
            self.counts.dropped_octets += self._reader.pending
            self._reader.reset()

    def _unknown(self, frame: LinkFrame, now: float, out: Routed) -> None:
        self.counts.unknown_frames += 1
        self.counts.last_unknown_address = frame.source
        out.unknown.append(frame)
        logged = self._logged_at
        if logged is None or now - logged >= UNKNOWN_LOG_INTERVAL:
            self._logged_at = now
            out.log_unknown = True
