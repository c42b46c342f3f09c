"""The web console (D88-D92): a page of plain ES modules in ``static/``, served by the
console's HTTP app at ``/`` (the page) and ``/console/`` (its modules, style and icon).

The page uses nothing but the operations API (``POST /api``) and ``GET /events``, so
everything a person can do there a script can do too. It needs no build step, loads nothing
from elsewhere, and works offline.
"""

from __future__ import annotations

from gridwire.console.files import ConsoleFiles, console_routes

__all__ = ["ConsoleFiles", "console_routes"]
