"""Vocabulary of controls: command status codes (CROB, analog output, g13/g43 events) and the
control code of a CROB (g12v1), by IEEE 1815-2012's names."""

from __future__ import annotations

from enum import IntEnum

from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.records import Crob


class CommandStatus(IntEnum):
    SUCCESS = 0
    TIMEOUT = 1
    NO_SELECT = 2
    FORMAT_ERROR = 3
    NOT_SUPPORTED = 4
    ALREADY_ACTIVE = 5
    HARDWARE_ERROR = 6
    LOCAL = 7
    TOO_MANY_OBJS = 8
    NOT_AUTHORIZED = 9
    AUTOMATION_INHIBIT = 10
    PROCESSING_LIMITED = 11
    OUT_OF_RANGE = 12
    DOWNSTREAM_LOCAL = 13
    ALREADY_COMPLETE = 14
    BLOCKED = 15
    CANCELLED = 16
    BLOCKED_OTHER_MASTER = 17
    DOWNSTREAM_FAIL = 18
    NON_PARTICIPATING = 126
    UNDEFINED = 127

    @classmethod
    def name_of(cls, code: int) -> str:
        """The status's name; an unassigned code reads as ``UNDEFINED_<n>``."""
        try:
            return cls(code).name
        except ValueError:
            return f"UNDEFINED_{code}"


class OpType(IntEnum):
    """Bits 0-3 of a CROB control code."""

    NUL = 0
    PULSE_ON = 1
    PULSE_OFF = 2
    LATCH_ON = 3
    LATCH_OFF = 4


class TripClose(IntEnum):
    """Bits 6-7 of a CROB control code."""

    NUL = 0
    CLOSE = 1
    TRIP = 2


QUEUE_BIT = 0x10
CLEAR_BIT = 0x20

# Operations a caller may name, each one control code octet.
OPERATIONS: dict[str, int] = {
    "NUL": 0x00,
    "PULSE_ON": 0x01,
    "PULSE_OFF": 0x02,
    "LATCH_ON": 0x03,
    "LATCH_OFF": 0x04,
    "CLOSE_PULSE_ON": 0x41,
    "TRIP_PULSE_ON": 0x81,
}


def control_code(operation: str | bool) -> int:
    """The control code octet for ``True``/``False`` (latch on/off) or an operation's name."""
    if isinstance(operation, bool):
        return OPERATIONS["LATCH_ON" if operation else "LATCH_OFF"]
    try:
        return OPERATIONS[operation.strip().upper()]
    except KeyError:
        known = ", ".join(OPERATIONS)
        raise EncodeError(
            f"unknown binary output operation {operation!r} (one of {known})"
        ) from None


def describe_control_code(code: int) -> str:
    """A control code octet by name, e.g. ``LATCH_ON`` or ``TRIP_PULSE_ON|CLEAR``."""
    for name, value in OPERATIONS.items():
        if value == code & ~(QUEUE_BIT | CLEAR_BIT):
            base = name
            break
    else:
        op, tc = code & 0x0F, code >> 6
        base = f"OP{op}" + (f"_TC{tc}" if tc else "")
    if code & CLEAR_BIT:
        base += "|CLEAR"
    if code & QUEUE_BIT:
        base += "|QUEUE"
    return base


# Names by octet, computed once so decoders look them up: a command status occupies bits 0-6
# of its octet (bit 7 is reserved in g12/g41, the commanded state in g13).
STATUS_NAMES: tuple[str, ...] = tuple(CommandStatus.name_of(octet & 0x7F) for octet in range(256))
OP_NAMES: tuple[str, ...] = tuple(describe_control_code(octet) for octet in range(256))


def status_code(status: str | int) -> int:
    """The code of a command status given by name (``SUCCESS``, ``UNDEFINED_42``) or number."""
    if isinstance(status, int):
        if not 0 <= status <= 0x7F:
            raise EncodeError(f"command status {status} is out of range 0-127")
        return status
    name = status.strip().upper()
    try:
        return CommandStatus[name].value
    except KeyError:
        pass
    prefix = "UNDEFINED_"
    if name.startswith(prefix) and name[len(prefix) :].isdigit():
        return status_code(int(name[len(prefix) :]))
    raise EncodeError(f"unknown command status {status!r}")


def crob(
    operation: str | bool | int,
    *,
    count: int = 1,
    on_ms: int = 100,
    off_ms: int = 100,
    status: str = "SUCCESS",
) -> Crob:
    """A control relay output block for an operation by name, True/False (latch on/off) or a
    raw control code octet; one operation of 100 ms on and 100 ms off unless told."""
    code = (
        operation
        if isinstance(operation, int) and not isinstance(operation, bool)
        else (control_code(operation))
    )
    if not 0 <= code <= 0xFF:
        raise EncodeError(f"control code {code} does not fit one octet")
    return Crob(code, OP_NAMES[code], count, on_ms, off_ms, status)
