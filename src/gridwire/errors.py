"""The root of every error gridwire raises on purpose.

Parsers raise a subclass of :class:`GridwireError` and nothing else, whatever octets or text
they are given; callers catch this one type at the edges.

The three errors with a ``kind`` are the ones an operation may answer with; the operations
service turns each into the envelope ``{"ok": false, "error": {"kind", "message"}}``.
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


class ConnectionFailed(OperationError):
    """No connection to ask over, or one could not be made."""

    kind = "connection"


class NotAllowed(OperationError):
    """The operation commands an outstation and the service was not started with
    ``--allow-control``."""

    kind = "not_allowed"
