"""The control gate: which application functions command, and the one refusal.

This module alone decides which function codes command an outstation (:func:`commands`) and
words the refusal (:func:`refusal`, one message wherever control is refused). Two gates ask it
(D17, D130): the service, from the operation table's ``commands`` flag, before an operation
runs; and the wire, below everything, for every request (:mod:`gridwire.master.wire`), so
nothing that commands leaves a master not created with ``allow_control``, whatever called it.
"""

from __future__ import annotations

from collections.abc import Container

from gridwire.dnp3.app.fragments import parse_request
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.files import MODE_READ
from gridwire.dnp3.objects.records import FileCommand, FileCommandStatus
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


FILE_INFO_FUNCTIONS: frozenset[FunctionCode] = frozenset(
    {FunctionCode.GET_FILE_INFO, FunctionCode.AUTHENTICATE_FILE}
)
"""File functions that change nothing on the outstation: a file's descriptor, and the key
credentials give (D193)."""


def commands(
    function: FunctionCode, body: bytes | None = None, read_handles: Container[int] = ()
) -> bool:
    """Whether asking for ``function`` by name commands (changes) the outstation.

    The file procedures are judged by their object data too (D193), ``body`` (None: unknown,
    so judged by the function alone): OPEN_FILE reads when every g70v3 it carries opens for
    reading (mode 1), and CLOSE_FILE and ABORT_FILE when every g70v4 names a handle in
    ``read_handles``, those this master opened for reading; GET_FILE_INFO and
    AUTHENTICATE_FILE never command. DELETE_FILE, and OPEN_FILE to write or append, do."""
    if function in READ_ONLY_FUNCTIONS or function in FILE_INFO_FUNCTIONS:
        return False
    if body is None or function not in _FILE_JUDGED:
        return True
    values = _file_objects(function, body)
    if not values:
        return True
    if function is FunctionCode.OPEN_FILE:
        return not all(isinstance(v, FileCommand) and v.mode == MODE_READ for v in values)
    return not all(
        isinstance(v, FileCommandStatus) and v.file_handle in read_handles for v in values
    )


_FILE_JUDGED = frozenset({FunctionCode.OPEN_FILE, FunctionCode.CLOSE_FILE, FunctionCode.ABORT_FILE})


def _file_objects(function: FunctionCode, body: bytes) -> list[object]:
    """The values of a file request's objects; empty when anything in it is not g70 or does
    not decode (judged as commanding)."""
    try:
        request = parse_request(bytes((0xC0, function)) + body)
    except DecodeError:
        return []
    if request.undecoded or any(h.group != 70 for h in request.headers):
        return []
    return [obj.value for obj in request.objects]


NOT_ALLOWED = (
    "the operation commands the outstation and control is not allowed (start with --allow-control)"
)
"""The one message of every refusal for want of control."""


def refusal() -> NotAllowed:
    """The error every gate raises when control is not allowed."""
    return NotAllowed(NOT_ALLOWED)


def check(
    function: FunctionCode,
    allow_control: bool,
    body: bytes | None = None,
    read_handles: Container[int] = (),
) -> None:
    """Raise NotAllowed when a request for ``function`` (with ``body``, see :func:`commands`)
    commands and control is not allowed. For requests only: the session's own confirmations
    of what asked for one are not."""
    if not allow_control and commands(function, body, read_handles):
        raise refusal()
