"""The generic device: a database from JSON whose outputs may all be commanded, each output's
status point (g10 / g40 of the same index) following what was commanded."""

from __future__ import annotations

from gridwire.dnp3.objects.controls import CommandStatus, OpType
from gridwire.outstation.controls import AnalogCommand, BinaryCommand, Command, Mode
from gridwire.outstation.database import Database

_KNOWN_OPS = frozenset(int(op) for op in OpType)


class GenericDevice:
    """A database and the control handler that accepts a control for any binary or analog
    output the database holds.

    A latch, close or trip sets the binary output's status; a pulse leaves it where it was (the
    output returns to its state when the pulse ends); NUL does nothing. An analog output's
    status takes the commanded value. A control for an index the database does not hold, or
    with an operation type the standard does not define, is refused NOT_SUPPORTED.
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self.log: list[tuple[Mode, Command]] = []

    def control(self, command: Command, mode: Mode, now: float) -> CommandStatus:
        if isinstance(command, BinaryCommand):
            if self.database.point("bo", command.index) is None:
                return CommandStatus.NOT_SUPPORTED
            if command.op_type not in _KNOWN_OPS or command.trip_close == 3:
                return CommandStatus.NOT_SUPPORTED
        elif self.database.point("ao", command.index) is None:
            return CommandStatus.NOT_SUPPORTED
        self.log.append((mode, command))
        if mode != "select":
            apply(self.database, command, now)
        return CommandStatus.SUCCESS

    def tick(self, now: float) -> None:
        """Nothing moves by itself in a generic database."""

    def restart(self, cold: bool, now: float) -> None:
        """A cold restart puts every point back as it started; a warm one keeps values."""
        if cold:
            self.database.reset()


def apply(database: Database, command: Command, now: float) -> None:
    """Mirror an accepted control into its output status point."""
    if isinstance(command, AnalogCommand):
        database.update("ao", command.index, command.value, now=now)
        return
    if command.op_type in (OpType.PULSE_ON, OpType.PULSE_OFF) and command.trip_close == 0:
        return
    state = command.state()
    if state is not None:
        database.update("bo", command.index, state, now=now)
