"""Application function codes of IEEE 1815-2012 (requests 0x00-0x21, responses 0x81-0x83),
by the standard's names."""

from __future__ import annotations

from enum import IntEnum

from gridwire.dnp3.errors import DecodeError


class FunctionCode(IntEnum):
    CONFIRM = 0x00
    READ = 0x01
    WRITE = 0x02
    SELECT = 0x03
    OPERATE = 0x04
    DIRECT_OPERATE = 0x05
    DIRECT_OPERATE_NR = 0x06
    IMMED_FREEZE = 0x07
    IMMED_FREEZE_NR = 0x08
    FREEZE_CLEAR = 0x09
    FREEZE_CLEAR_NR = 0x0A
    FREEZE_AT_TIME = 0x0B
    FREEZE_AT_TIME_NR = 0x0C
    COLD_RESTART = 0x0D
    WARM_RESTART = 0x0E
    INITIALIZE_DATA = 0x0F
    INITIALIZE_APPL = 0x10
    START_APPL = 0x11
    STOP_APPL = 0x12
    SAVE_CONFIG = 0x13
    ENABLE_UNSOLICITED = 0x14
    DISABLE_UNSOLICITED = 0x15
    ASSIGN_CLASS = 0x16
    DELAY_MEASURE = 0x17
    RECORD_CURRENT_TIME = 0x18
    OPEN_FILE = 0x19
    CLOSE_FILE = 0x1A
    DELETE_FILE = 0x1B
    GET_FILE_INFO = 0x1C
    AUTHENTICATE_FILE = 0x1D
    ABORT_FILE = 0x1E
    ACTIVATE_CONFIG = 0x1F
    AUTHENTICATE_REQ = 0x20
    AUTH_REQ_NO_ACK = 0x21
    RESPONSE = 0x81
    UNSOLICITED_RESPONSE = 0x82
    AUTHENTICATE_RESP = 0x83

    @classmethod
    def from_name(cls, name: str) -> FunctionCode:
        """The function code called ``name`` (case-insensitive); DecodeError for an unknown one."""
        try:
            return cls[name.strip().upper()]
        except KeyError:
            raise DecodeError(f"unknown function code name {name!r}") from None

    @classmethod
    def from_octet(cls, octet: int) -> FunctionCode:
        try:
            return cls(octet)
        except ValueError:
            raise DecodeError(f"unknown function code 0x{octet:02X}") from None

    @property
    def is_response(self) -> bool:
        return self >= 0x81

    @property
    def expects_response(self) -> bool:
        """Whether an outstation answers this request (False for the no-ack functions)."""
        return self not in NO_RESPONSE and not self.is_response


NO_RESPONSE: frozenset[FunctionCode] = frozenset(
    {
        FunctionCode.CONFIRM,
        FunctionCode.DIRECT_OPERATE_NR,
        FunctionCode.IMMED_FREEZE_NR,
        FunctionCode.FREEZE_CLEAR_NR,
        FunctionCode.FREEZE_AT_TIME_NR,
        FunctionCode.AUTH_REQ_NO_ACK,
    }
)
