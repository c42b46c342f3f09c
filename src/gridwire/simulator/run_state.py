"""The simulated DER's run state: started (in service) or stopped (ceased to energize), by the
start (BO1) and stop (BO2) commands, each allowed by its permission (BO3 to start, BO4 to
stop). Each rule is pinned by a test in tests/simulator.

- A start (BO1 on) while BO3 is off is refused BLOCKED, as is a stop (BO2 on) while BO4 is
  off. A map without the permission output has no such rule. (The deviation
  ``start_without_permission`` accepts a start anyway.)
- An accepted start: the DER is started. BO1 and its mirror (BI12, starting up) are on until
  the next tick, when the start has completed and they go off; the stop's latch (BO2 and its
  mirror BI13) goes off.
- An accepted stop: the DER is stopped. BO2 and its mirror (BI13, ceasing to energize) stay
  on while it is stopped; the start's latch goes off.
- Latching BO1 or BO2 off changes only that output and its mirror.

The model reads :attr:`RunState.started`; BI14 (started) and BI15 (stopped) follow it on each
tick (:mod:`gridwire.simulator.der`).
"""

from __future__ import annotations

from collections.abc import Callable

from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.simulator import profile as P

START_WITHOUT_PERMISSION = "start_without_permission"

Latched = Callable[[int], bool | None]
"""The state a binary output holds (None: the map has no such output)."""
Latch = Callable[[int, bool, float], None]
"""Set a binary output and its mirror input: (index, state, now)."""


class RunState:
    """Started or stopped, and the start and stop latches (see the module's notes)."""

    def __init__(self, latched: Latched, latch: Latch, misbehave: frozenset[str]) -> None:
        self._latched = latched
        self._latch = latch
        self._misbehave = misbehave
        self.started = True
        self._starting = False

    def refusal(self, index: int, state: bool) -> CommandStatus | None:
        """BLOCKED for a start or stop whose permission is not granted."""
        if not state or index not in (P.START, P.STOP):
            return None
        if index == P.START and START_WITHOUT_PERMISSION in self._misbehave:
            return None
        permission = P.START_PERMISSION if index == P.START else P.STOP_PERMISSION
        return CommandStatus.BLOCKED if self._latched(permission) is False else None

    def commanded(self, index: int, state: bool, now: float) -> None:
        """An accepted latch of ``index`` (already set with its mirror) took effect."""
        if not state or index not in (P.START, P.STOP):
            return
        start = index == P.START
        self.started = start
        self._starting = start
        other = P.STOP if start else P.START
        if self._latched(other):
            self._latch(other, False, now)

    def tick(self, now: float) -> None:
        """A start under way completes."""
        if self._starting:
            self._starting = False
            if self._latched(P.START):
                self._latch(P.START, False, now)
