"""How an outstation peer answers controls and restart requests, as the test sets it.

Controls: SUCCESS for a point that exists and NOT_SUPPORTED for an index beyond the database;
the ``answer`` command replaces SUCCESS with another status for the next ``count`` control
callbacks (every one if no count) at ``on`` select, operate or any. Status names are the ones
opendnp3 and dnp3py share (LOCAL, NOT_AUTHORIZED, HARDWARE_ERROR...).

Restarts: the ``restart_support`` command sets, for ``kind`` cold or warm, the ``mode``
(unsupported, fine: a g52v2 delay in ms, coarse: a g52v1 delay in s, where the stack has it)
and the ``delay`` answered.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from peerio import CommandError, Json, emit, require

_PHASES = ("any", "select", "operate")


class Answers:
    def __init__(self, points: int, known: set[str]) -> None:
        self._points = points
        self._known = known
        self._lock = threading.Lock()
        self._status: str = "SUCCESS"
        self._count: int | None = None
        self._on: str = "any"

    def status_for(self, phase: str, index: int) -> str:
        """The status to answer a control callback at ``phase`` for point ``index``."""
        if index >= self._points:
            return "NOT_SUPPORTED"
        with self._lock:
            if self._on not in ("any", phase):
                return "SUCCESS"
            status = self._status
            if self._count is not None:
                self._count -= 1
                if self._count <= 0:
                    self._status, self._count, self._on = "SUCCESS", None, "any"
            return status

    def command(self, command: Json) -> Json:
        """The ``answer`` command: ``status``, optional ``count`` and ``on``."""
        status = str(require(command, "status"))
        if status not in self._known:
            raise CommandError(f"status {status!r} is not one of {sorted(self._known)}")
        on = str(command.get("on", "any"))
        if on not in _PHASES:
            raise CommandError(f"on is one of {_PHASES}")
        count = command.get("count")
        with self._lock:
            self._status, self._count, self._on = status, None if count is None else int(count), on
        return {}


class Restarts:
    """Per kind (cold, warm): the mode and delay a restart request is answered with."""

    def __init__(
        self, modes: tuple[str, ...], cold: tuple[str, int], warm: tuple[str, int]
    ) -> None:
        self._modes = modes
        self.settings = {"cold": cold, "warm": warm}

    def requested(self, kind: str) -> tuple[str, int]:
        """Print a ``restart`` event for a request of ``kind``; return its (mode, delay)."""
        mode, delay = self.settings[kind]
        emit("restart", kind=kind, mode=mode, delay=delay)
        return mode, delay

    def command(self, command: Json) -> Json:
        kind = str(require(command, "kind"))
        mode = str(require(command, "mode"))
        if kind not in self.settings or mode not in self._modes:
            raise CommandError(f"kind is cold or warm, mode one of {self._modes}")
        self.settings[kind] = (mode, int(command.get("delay", 0)))
        return {}


def policy_commands(answers: Answers, restarts: Restarts) -> dict[str, Callable[[Json], Json]]:
    return {"answer": answers.command, "restart_support": restarts.command}
