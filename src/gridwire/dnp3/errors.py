"""Errors of the protocol core. Every parser raises :class:`DecodeError` (or a subclass) and
nothing else, whatever octets it is given."""

from gridwire.errors import GridwireError


class DnpError(GridwireError):
    """Base of the protocol core's errors."""


class DecodeError(DnpError):
    """Octets that cannot be read as what they were meant to be; the message says why."""


class EncodeError(DnpError):
    """A value that cannot be put on the wire as asked (out of range, unknown object...)."""
