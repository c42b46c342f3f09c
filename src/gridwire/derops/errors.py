"""The DER operations' own error (kind ``request``, D132)."""

from __future__ import annotations

from gridwire.errors import RequestError


class NotConfigured(RequestError):
    """The outstation lacks what the operation needs: a profile (the point map), a Device
    Profile document, a curve block or one of its points."""
