"""Vocabulary of controls: command status codes (CROB, analog output, g13/g43 events) and the
control code of a CROB (g12v1), by IEEE 1815-2012's names."""

from __future__ import annotations

from enum import IntEnum

from gridwire.dnp3.errors import EncodeError


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
