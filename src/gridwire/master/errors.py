"""The master's own error: an outstation it was not given (kind ``request``, D132)."""

from __future__ import annotations

from gridwire.errors import UnknownName


class UnknownOutstation(UnknownName):
    """No outstation of this master is named so."""
