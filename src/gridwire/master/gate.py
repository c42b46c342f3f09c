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
        FunctionCode.READ,
        FunctionCode.ENABLE_UNSOLICITED,
        FunctionCode.DISABLE_UNSOLICITED,
        FunctionCode.DELAY_MEASURE,
    }
)
"""What a master without control may ask for by name (``request``, ``broadcast``): the
function codes that read, confirm nothing and change nothing on the outstation (D17). CONFIRM is not on it: a confirmation sent by hand can retire events an outstation holds
for the master, so the session alone confirms, and only what asks for it."""


def commands(function: FunctionCode) -> bool:
    """Whether asking for ``function`` by name commands (changes) the outstation."""
    return function not in READ_ONLY_FUNCTIONS


def check(function: FunctionCode, allow_control: bool) -> None:
    """Raise NotAllowed when a request for ``function`` commands and control is not allowed.
    For requests only: the session's own confirmations of what asked for one are not."""
    if not allow_control and commands(function):
        raise NotAllowed(
            f"{function.name} commands the outstation; the master was not started with "
            "control allowed"
        )
