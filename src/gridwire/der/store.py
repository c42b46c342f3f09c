"""Where installed tables live, and choosing the map an outstation serves.

``gridwire tables build|fetch`` write the map built from IEEE's workbook to
``~/.gridwire/ieee1815.2-tables.json`` unless told otherwise. The simulated DER and the master
serve or use, in this order: the map file they are given, the installed tables, the demo map.
"""

from __future__ import annotations

from pathlib import Path

from gridwire.der.demo import demo_map
from gridwire.der.mapfile import load_map
from gridwire.der.pointmap import PointMap

TABLES_FILE = "ieee1815.2-tables.json"


def gridwire_home() -> Path:
    """The folder gridwire keeps its files in: ``~/.gridwire``."""
    return Path.home() / ".gridwire"


def default_tables_path() -> Path:
    """Where ``gridwire tables`` installs the map built from IEEE's workbook."""
    return gridwire_home() / TABLES_FILE


def installed_tables() -> Path | None:
    """The installed tables' map file, or None when none are installed."""
    path = default_tables_path()
    return path if path.is_file() else None


def load_point_map(path: str | Path | None = None) -> PointMap:
    """The map at ``path`` when given (MapError if it cannot be used), else the installed
    tables, else the demo map."""
    if path is not None:
        return load_map(Path(path))
    installed = installed_tables()
    return demo_map() if installed is None else load_map(installed)
