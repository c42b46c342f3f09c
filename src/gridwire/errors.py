"""The root of every error gridwire raises on purpose.

Parsers raise a subclass of :class:`GridwireError` and nothing else, whatever octets or text
they are given; callers catch this one type at the edges.

An :class:`OperationError` is one an operation may answer with; its class attribute ``kind``
is the envelope's ``error.kind``, and the operations service turns it into
``{"ok": false, "error": {"kind", "message"}}`` in one place (``operations/dispatch.py``). The
core raises errors named for what went wrong; each subclasses the error of its kind:

- kind ``request`` (:class:`RequestError`): :class:`BadParameter`, :class:`UnknownName`
  (``master.errors.UnknownOutstation``, ``der.errors.UnknownPoint``), :class:`Conflict`,
  ``devprofile.errors.RefusedDocument``, ``derops.errors.NotConfigured``;
- kind ``connection``: :class:`ConnectionFailed`; kind ``not_allowed``: :class:`NotAllowed`;
- kind ``internal``: :class:`InternalError`, raised by nothing; the service answers with it
  when an operation fails unexpectedly (a bug), its traceback in the service's log (D132).
"""

from __future__ import annotations

from typing import ClassVar


class GridwireError(Exception):
    """Base class of gridwire's own errors."""


class ConfigError(GridwireError):
    """A setting, flag or configuration file that cannot be used; the message names it."""


class OperationError(GridwireError):
    """An operation that could not be carried out; ``kind`` names why, as the API reports it."""

    kind: ClassVar[str] = "request"


class RequestError(OperationError):
    """The message could not be acted on: unknown operation or outstation, a bad parameter,
    a rejected document."""

    kind = "request"


class BadParameter(RequestError):
    """A parameter whose value cannot be used: of the wrong kind, outside its range, not one
    of its choices, or more than a request to the outstation can carry."""


class UnknownName(RequestError):
    """A name that names nothing there is: a function, a profile, a task, a check..."""


class Conflict(RequestError):
    """Cannot be done as things stand: an outstation already added, an evaluation already
    running, a restore journal left behind (or none, or one that cannot be read)."""


class ConnectionFailed(OperationError):
    """No connection to ask over, or one could not be made."""

    kind = "connection"


class NotAllowed(OperationError):
    """The operation commands an outstation and the service was not started with
    ``--allow-control``."""

    kind = "not_allowed"


class InternalError(OperationError):
    """An operation failed unexpectedly (a bug): the service answers with this, naming no
    internals, and logs the traceback once. No input, valid or not, should ever cause it."""

    kind = "internal"
