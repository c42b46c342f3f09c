"""Controls as the outstation receives them, the handler that decides each one, and the rules
of select-before-operate.

IEEE 1815-2012 (4.4.3 and the command status table of 11.9.1): an OPERATE is executed only
when it follows a SELECT that was accepted, arrives with the next application sequence number
(modulo 16), carries object octets identical to the select's, comes before the select timer
expires, and no other request came between. A late operate that otherwise matches is answered
TIMEOUT; any other mismatch NO_SELECT. Each selection is good for one operate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from gridwire.dnp3.objects.controls import CLEAR_BIT, QUEUE_BIT, CommandStatus, OpType, TripClose

Mode = Literal["select", "operate", "direct", "direct_no_ack"]
"""Why a handler is asked: ``select`` (may it be operated?), ``operate`` (after a select),
``direct`` and ``direct_no_ack`` (operate without a select)."""


@dataclass(frozen=True, slots=True)
class BinaryCommand:
    """A control relay output block (g12v1) for the binary output ``index``."""

    index: int
    code: int
    count: int
    on_ms: int
    off_ms: int

    @property
    def op_type(self) -> int:
        return self.code & 0x0F

    @property
    def trip_close(self) -> int:
        return self.code >> 6

    @property
    def clear(self) -> bool:
        return bool(self.code & CLEAR_BIT)

    @property
    def queue(self) -> bool:
        return bool(self.code & QUEUE_BIT)

    def state(self) -> bool | None:
        """The state the command drives the output to: on for LATCH_ON, CLOSE and PULSE_ON,
        off for LATCH_OFF, TRIP and PULSE_OFF; None for NUL (and for undefined codes)."""
        if self.trip_close == TripClose.CLOSE:
            return True
        if self.trip_close == TripClose.TRIP:
            return False
        if self.op_type in (OpType.LATCH_ON, OpType.PULSE_ON):
            return True
        if self.op_type in (OpType.LATCH_OFF, OpType.PULSE_OFF):
            return False
        return None


@dataclass(frozen=True, slots=True)
class AnalogCommand:
    """An analog output command (g41 ``variation``: 1 int32, 2 int16, 3 float32, 4 float64)."""

    index: int
    value: int | float
    variation: int


Command = BinaryCommand | AnalogCommand


class ControlHandler(Protocol):
    """Decides what becomes of each control. The outstation asks it once per object, in request
    order, and echoes each status back; ``mode`` says why it is asked. A handler that accepts an
    operate (SUCCESS) carries it out before it returns, updating the database as it does
    (mirroring the output's status point, say) so that the response already reports it."""

    def control(self, command: Command, mode: Mode, now: float) -> CommandStatus: ...


@dataclass(slots=True)
class _Selection:
    sequence: int
    objects: bytes
    expires: float


class SelectRules:
    """The armed selection, if any, and the rules an operate must meet."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._armed: _Selection | None = None

    @property
    def armed(self) -> bool:
        return self._armed is not None

    @property
    def deadline(self) -> float | None:
        return None if self._armed is None else self._armed.expires

    def arm(self, sequence: int, objects: bytes, now: float) -> None:
        """A select with these object octets was accepted at ``now``."""
        self._armed = _Selection(sequence, objects, now + self.timeout)

    def disarm(self) -> None:
        self._armed = None

    def check(self, sequence: int, objects: bytes, now: float) -> CommandStatus:
        """SUCCESS when an operate with this sequence and these object octets may proceed;
        the selection is used up either way."""
        armed, self._armed = self._armed, None
        if armed is None:
            return CommandStatus.NO_SELECT
        if sequence != (armed.sequence + 1) & 0x0F or objects != armed.objects:
            return CommandStatus.NO_SELECT
        if now > armed.expires:
            return CommandStatus.TIMEOUT
        return CommandStatus.SUCCESS
