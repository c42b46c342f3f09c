"""The error of a Device Profile document that is refused (kind ``request``, D132)."""

from __future__ import annotations

from gridwire.errors import RequestError


class RefusedDocument(RequestError):
    """A Device Profile document that cannot be read or used: too large, not XML, a DTD or
    entities, beyond the reader's limits, a point without a usable index, a file that cannot
    be read. The message says which, and where."""
