"""Internal indications: the two octets after a response's function code.

As a 16-bit value IIN1 is the low octet (bits 0-7) and IIN2 the high octet (bits 8-15), so
a bit's position is also its index as a g80 point (IIN1.0 is index 0, IIN2.7 index 15).
Names follow IEEE 1815-2012, but for IIN2.0: the standard's NO_FUNC_CODE_SUPPORT is named
FUNC_NOT_SUPPORTED, as our issues, opendnp3 and most masters' logs call it (the standard's
name is still accepted by :meth:`IIN.from_names`).
"""

from __future__ import annotations

from enum import IntFlag


class IIN(IntFlag):
    # IIN1
    BROADCAST = 1 << 0
    CLASS_1_EVENTS = 1 << 1
    CLASS_2_EVENTS = 1 << 2
    CLASS_3_EVENTS = 1 << 3
    NEED_TIME = 1 << 4
    LOCAL_CONTROL = 1 << 5
    DEVICE_TROUBLE = 1 << 6
    DEVICE_RESTART = 1 << 7
    # IIN2
    FUNC_NOT_SUPPORTED = 1 << 8
    OBJECT_UNKNOWN = 1 << 9
    PARAMETER_ERROR = 1 << 10
    EVENT_BUFFER_OVERFLOW = 1 << 11
    ALREADY_EXECUTING = 1 << 12
    CONFIG_CORRUPT = 1 << 13
    RESERVED_2 = 1 << 14
    RESERVED_1 = 1 << 15
    # IEEE 1815-2012's own name for IIN2.0: an alias, never listed by ``names``.
    NO_FUNC_CODE_SUPPORT = FUNC_NOT_SUPPORTED

    @classmethod
    def from_octets(cls, iin1: int, iin2: int) -> IIN:
        return cls((iin2 << 8) | iin1)

    def to_octets(self) -> bytes:
        return bytes((self.value & 0xFF, self.value >> 8))

    @property
    def names(self) -> list[str]:
        """Names of the bits set, lowest bit first (each value read once: every exchange
        and every status entry asks)."""
        value = int(self)
        names = _NAMES.get(value)
        if names is None:
            names = _NAMES[value] = tuple(
                flag.name for flag in IIN if flag.name is not None and self & flag
            )
        return list(names)

    @classmethod
    def from_names(cls, names: list[str]) -> IIN:
        value = cls(0)
        for name in names:
            value |= cls[name.strip().upper()]
        return value


# Indications by which an outstation refuses a request.
REFUSALS = IIN.FUNC_NOT_SUPPORTED | IIN.OBJECT_UNKNOWN | IIN.PARAMETER_ERROR
# Indications that say events of a class wait to be read.
CLASS_EVENTS = {1: IIN.CLASS_1_EVENTS, 2: IIN.CLASS_2_EVENTS, 3: IIN.CLASS_3_EVENTS}


_NAMES: dict[int, tuple[str, ...]] = {}
"""The names of the bits of each IIN value read so far (at most 65,536 values)."""
