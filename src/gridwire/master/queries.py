"""What a caller may ask of one outstation beyond the operations, on :class:`Master`'s API.

An evaluation (and the DER procedures) need to know an outstation's settings, whether it is
connected, where its trace and its event log stand, which deviations are on, and to make a
READ whose parsed responses it judges. They ask these here, by the outstation's name, never
through its :class:`~gridwire.master.session.Session` (DESIGN D134): each answer is data, so
a master in another process could give it. :class:`Master` inherits them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import BadParameter
from gridwire.master.records import CaptureResult, FrameRecord
from gridwire.master.session import Session
from gridwire.master.session_protocol import ExchangeResult
from gridwire.master.settings import OutstationSettings
from gridwire.master.trace import DEFAULT_MASTER, DEFAULT_OUTSTATION
from gridwire.process.clock import Clock

CLEARABLE = ("frames", "events", "values")


class OutstationQueries:
    """The queries; :class:`Master` gives :meth:`session` and :attr:`clock`."""

    clock: Clock

    def session(self, outstation: str) -> Session:  # pragma: no cover - Master's
        raise NotImplementedError

    def settings(self, outstation: str) -> OutstationSettings:
        """The outstation's settings as it was added (RequestError for an unknown name)."""
        return self.session(outstation).settings

    def connected(self, outstation: str) -> bool:
        return self.session(outstation).connected

    async def wait_connected(self, outstation: str, seconds: float) -> bool:
        """Whether the outstation is connected, waiting up to ``seconds`` for it to be."""
        session = self.session(outstation)
        deadline = self.clock.monotonic() + seconds
        while not session.connected and self.clock.monotonic() < deadline:
            left = max(0.0, deadline - self.clock.monotonic())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.connector.up.wait(), left)
        return session.connected

    def frame_mark(self, outstation: str) -> int:
        """The id of the latest frame in the trace (0 before any): ``trace(outstation,
        mark)`` gives the frames that follow it."""
        return self.session(outstation).frames.last_id

    def event_mark(self, outstation: str) -> int:
        """The sequence number of the latest event logged (0 before any)."""
        return self.session(outstation).events.mark()

    def events_after(self, outstation: str, mark: int) -> list[DnpObject]:
        """The events logged after ``mark`` (:meth:`event_mark`), oldest first."""
        return self.session(outstation).events.after(mark)

    def deviations(self, outstation: str) -> dict[str, object]:
        """The deviations on (:meth:`Master.deviate` turns them on and off)."""
        return self.session(outstation).deviations.on

    def changed(self, outstation: str) -> Awaitable[object]:
        """Finishes when the outstation's next response has been taken in."""
        return self.session(outstation).changed()

    async def read_responses(self, outstation: str, body: bytes) -> ExchangeResult:
        """One READ of ``body``'s object headers, answered with its responses as parsed and
        what they broke of the rules (:class:`ExchangeResult`), for a caller judging them."""
        return await self.session(outstation).exchange(FunctionCode.READ, body)

    def trace(self, outstation: str, after: int = 0) -> list[FrameRecord]:
        return self.session(outstation).frames.after(after)

    def trace_dropped(self, outstation: str, after: int = 0) -> tuple[int, int]:
        """Frames with an id above ``after`` no longer kept, and frames the trace dropped for
        room (its cap or the trace budget) since the outstation was added."""
        frames = self.session(outstation).frames
        return frames.gone(after), frames.dropped

    def capture(self, outstation: str, after: int = 0) -> CaptureResult:
        """The frames kept as a pcap file (base64), framed as the outstation's connection."""
        session = self.session(outstation)
        local, remote = session.endpoints or (DEFAULT_MASTER, DEFAULT_OUTSTATION)
        return session.frames.pcap(after, master=local, outstation=remote)

    def clear(self, outstation: str, what: str = "frames") -> int:
        """Forget the frames, events or values kept; how many were forgotten."""
        session = self.session(outstation)
        if what == "frames":
            return session.frames.clear()
        if what == "events":
            return session.events.clear()
        if what == "values":
            return session.store.clear()
        raise BadParameter(f"clear: {what!r} is not one of {', '.join(CLEARABLE)}")
