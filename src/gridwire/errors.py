"""The root of every error gridwire raises on purpose.

Parsers raise a subclass of :class:`GridwireError` and nothing else, whatever octets or text
they are given; callers catch this one type at the edges.
"""


class GridwireError(Exception):
    """Base class of gridwire's own errors."""


class ConfigError(GridwireError):
    """A setting, flag or configuration file that cannot be used; the message names it."""
