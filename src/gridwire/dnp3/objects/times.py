"""DNP3 time: 48-bit milliseconds since 1970-01-01 UTC, and the interval units of g50v4
(IEEE 1815-2012, group 50 variation 4), by name."""

from __future__ import annotations

from gridwire.dnp3.errors import EncodeError

TIME48_MAX = (1 << 48) - 1

_UNITS = (
    "NO_REPEAT",  # the action is not repeated
    "MILLISECONDS",
    "SECONDS",
    "MINUTES",
    "HOURS",
    "DAYS",
    "WEEKS",
    "MONTHS_SAME_DAY",  # same day of each month
    "MONTHS_SAME_WEEKDAY",  # same day of the week, counted from the start of the month
    "MONTHS_WEEKDAY_FROM_END",  # same day of the week, counted from the end of the month
    "SEASONS",  # as the outstation defines a season
)
# Name of each units octet; codes the standard leaves undefined read as UNDEFINED_<n>.
UNIT_NAMES: tuple[str, ...] = tuple(
    _UNITS[code] if code < len(_UNITS) else f"UNDEFINED_{code}" for code in range(256)
)
_CODES = {name: code for code, name in enumerate(UNIT_NAMES)}


def unit_code(units: str | int) -> int:
    """The units octet for a name (``MINUTES``) or a number 0-255."""
    if isinstance(units, int):
        if not 0 <= units <= 0xFF:
            raise EncodeError(f"interval units {units} do not fit one octet")
        return units
    try:
        return _CODES[units.strip().upper()]
    except KeyError:
        raise EncodeError(f"unknown interval units {units!r} ({', '.join(_UNITS)})") from None
