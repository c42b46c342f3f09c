"""The IEEE 1815.2 (DNP3 for DER) point map: points, DER functions and the curve block; the JSON
map format; the loader of IEEE's companion workbook; the built-in demo map; point naming for the
master; the records of the `profile` operation.

Typical use::

    from gridwire.der import load_point_map
    point_map = load_point_map(path_or_none)   # the file given, else installed tables, else demo
    point = point_map.resolve("system meter active power")           # AI537
    target = point_map.resolve("AO212", write=True)
"""

from gridwire.der.demo import DEMO_CURVES, demo_map
from gridwire.der.errors import FetchError, MapError, WorkbookError
from gridwire.der.functions import Curve, CurveBlock, CurveRef, DerFunction
from gridwire.der.mapfile import dumps, load_map, loads, save_map
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point
from gridwire.der.records import Profile, ProfilePoint, profile_of
from gridwire.der.store import default_tables_path, installed_tables, load_point_map
from gridwire.der.text import EnumValue

__all__ = [
    "DEMO_CURVES",
    "Address",
    "Curve",
    "CurveBlock",
    "CurveRef",
    "DerFunction",
    "EnumValue",
    "FetchError",
    "Kind",
    "MapError",
    "Point",
    "PointMap",
    "Profile",
    "ProfilePoint",
    "WorkbookError",
    "default_tables_path",
    "demo_map",
    "dumps",
    "installed_tables",
    "load_map",
    "load_point_map",
    "loads",
    "profile_of",
    "save_map",
]
