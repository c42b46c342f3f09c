"""Errors of the IEEE 1815.2 point map: a map file, a workbook, or a download that cannot be used.

A point named badly in an operation is not one of these: naming raises
:class:`UnknownPoint` or :class:`gridwire.errors.BadParameter`, errors an operation answers
with (kind ``request``, D132).
"""

from __future__ import annotations

from gridwire.errors import ConfigError, GridwireError, UnknownName


class MapError(ConfigError):
    """A point map (a JSON map file, or a map being built) that cannot be used; the message
    names the point, field or file."""


class WorkbookError(MapError):
    """A workbook that cannot be read as the profile's tables; the message names the sheet, the
    row and the cell."""


class FetchError(GridwireError):
    """The tables could not be downloaded or found in what was downloaded; one line says why."""


class UnknownPoint(UnknownName):
    """No point of the profile is named so (by name or by address)."""
