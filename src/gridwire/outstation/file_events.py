"""File events: the answers of file requests the outstation deferred (D200).

With ``files_defer`` (:class:`gridwire.outstation.config.OutstationConfig`) the outstation
answers the file requests named there with a null response, and the g70 object that would
have answered (a g70v4, g70v5, g70v6 or g70v7 with its header) waits here as an event of
class ``files_event_class``: it raises that class's IIN bit, goes out in the response to a
read of the class (g60v2-v4) or of file events (g70v0), or unsolicited when the class is
enabled, and like every event it is held by the fragment that carries it, retired by that
fragment's confirm and given back when the confirm does not come.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class _FileEvent:
    objects: bytes  # one g70 object with its header, as a response carries it
    holder: int | None = None  # the fragment carrying it, None while it waits


class FileEvents:
    """The deferred file answers of one outstation, oldest first."""

    def __init__(self, event_class: int) -> None:
        self.event_class = event_class
        self._events: list[_FileEvent] = []

    def add(self, objects: bytes) -> None:
        self._events.append(_FileEvent(objects))

    def waiting(self) -> int:
        """File events no fragment holds."""
        return sum(1 for e in self._events if e.holder is None)

    def take(self, token: int, room: int) -> bytes | None:
        """The oldest waiting file event when it fits ``room`` octets, then held by the
        fragment ``token``; None when none waits or it does not fit."""
        event = next((e for e in self._events if e.holder is None), None)
        if event is None or len(event.objects) > room:
            return None
        event.holder = token
        return event.objects

    def retire(self, token: int) -> None:
        """The fragment ``token`` was confirmed: what it carried is delivered."""
        self._events = [e for e in self._events if e.holder != token]

    def release(self, token: int | None = None) -> None:
        """The fragment ``token`` (every one, for None) will not be confirmed."""
        for event in self._events:
            if token is None or event.holder == token:
                event.holder = None
