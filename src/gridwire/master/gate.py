"""The control gate: which application functions command, and the one refusal.

This module alone decides which function codes command an outstation (:func:`commands`) and
words the refusal (:func:`refusal`, one message wherever control is refused). Two gates ask it
(D17, D130): the service, from the operation table's ``commands`` flag, before an operation
runs; and the wire, below everything, for every request (:mod:`gridwire.master.wire`), so
nothing that commands leaves a master not created with ``allow_control``, whatever called it.
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


CONTROL_FUNCTIONS: frozenset[FunctionCode] = frozenset(
    {
        FunctionCode.SELECT,
        FunctionCode.OPERATE,
        FunctionCode.DIRECT_OPERATE,
        FunctionCode.DIRECT_OPERATE_NR,
    }
)
"""Among the functions that command, those that carry controls (g12 CROB, g41 analog
outputs): the session's command hook sees these (:data:`gridwire.master.session.CommandHook`)."""


def commands(function: FunctionCode) -> bool:
    """Whether asking for ``function`` by name commands (changes) the outstation."""
    return function not in READ_ONLY_FUNCTIONS


NOT_ALLOWED = (
    "the operation commands the outstation and control is not allowed (start with --allow-control)"
)
"""The one message of every refusal for want of control."""


def refusal() -> NotAllowed:
    """The error every gate raises when control is not allowed."""
    return NotAllowed(NOT_ALLOWED)


def check(function: FunctionCode, allow_control: bool) -> None:
    """Raise NotAllowed when a request for ``function`` commands and control is not allowed.
    For requests only: the session's own confirmations of what asked for one are not."""
    if not allow_control and commands(function):
        raise refusal()
