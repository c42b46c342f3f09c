"""The wire gate: which application functions a master that may not command can send.

The session asks :func:`check` at the one place fragments are written, so nothing that
commands an outstation leaves the master unless it was created with ``allow_control``,
whatever called it (defence in depth under the service's own gate).
"""

from __future__ import annotations

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import NotAllowed

READ_ONLY_FUNCTIONS: frozenset[FunctionCode] = frozenset(
    {
        FunctionCode.CONFIRM,
        FunctionCode.READ,
        FunctionCode.ENABLE_UNSOLICITED,
        FunctionCode.DISABLE_UNSOLICITED,
        FunctionCode.DELAY_MEASURE,
    }
)


def commands(function: FunctionCode) -> bool:
    """Whether sending ``function`` commands (changes) the outstation."""
    return function not in READ_ONLY_FUNCTIONS


def check(function: FunctionCode, allow_control: bool) -> None:
    """Raise NotAllowed when ``function`` commands and control is not allowed."""
    if not allow_control and commands(function):
        raise NotAllowed(
            f"{function.name} commands the outstation; the master was not started with "
            "control allowed"
        )
