"""The generic database as JSON (documented in docs/outstation.md).

::

    {
      "event_buffer": 100,                     # or {"1": 200, "2": 100, "3": 50}
      "variations": {"ai": {"static": 5, "event": 7}},
      "points": {
        "bi": 10,                              # indices 0..9, class 1, default variations
        "counter": {"count": 4, "class": 3, "deadband": 5},
        "ai": [{"index": 7, "class": 2, "value": 12.5, "deadband": 0.5,
                "static_variation": 5, "event_variation": 7, "flags": 1}]
      }
    }

Every mistake is a ConfigError naming where it is (``points.ai[0].class``...).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gridwire.errors import ConfigError
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.database import Database
from gridwire.outstation.json_values import mapping, number, only, read_json, whole
from gridwire.outstation.points import ONLINE, POINT_TYPES, PointType, Value

_POINT_KEYS = frozenset(
    {"index", "class", "value", "deadband", "static_variation", "event_variation", "flags"}
)
_COUNT_KEYS = frozenset(
    {"count", "start", "class", "value", "deadband", "static_variation", "event_variation"}
)
DEFAULT_COUNT = 10
Variations = dict[PointType, tuple[int | None, int | None]]


def load_database(path: str | Path, clock: DeviceClock | None = None) -> Database:
    """Read a database file; ConfigError naming the file for any problem."""
    file = Path(path)
    document = read_json(file, "database")
    try:
        return database_from_json(document, clock)
    except ConfigError as exc:
        raise ConfigError(f"database file {file}: {exc}") from None


def default_database(clock: DeviceClock | None = None, count: int = DEFAULT_COUNT) -> Database:
    """``count`` points of every type, class 1, default variations."""
    return database_from_json({"points": dict.fromkeys(POINT_TYPES, count)}, clock)


def database_from_json(document: object, clock: DeviceClock | None = None) -> Database:
    """Build a database from the parsed JSON document."""
    top = mapping(document, "the database")
    only(top, {"event_buffer", "variations", "points"}, "the database")
    database = Database(clock, _event_buffer(top.get("event_buffer", 100)))
    defaults = parse_variations(top.get("variations", {}))
    points = mapping(top.get("points", {}), "points")
    for key, spec in points.items():
        if key not in POINT_TYPES:
            raise ConfigError(f"points.{key}: unknown point type (one of {', '.join(POINT_TYPES)})")
        type: PointType = key
        static, event = defaults.get(type, (None, None))
        where = f"points.{type}"
        if isinstance(spec, list):
            for n, item in enumerate(spec):
                _add_point(
                    database, type, mapping(item, f"{where}[{n}]"), f"{where}[{n}]", static, event
                )
        elif isinstance(spec, dict):
            _add_range(database, type, spec, where, static, event)
        else:
            _add_range(database, type, {"count": spec}, where, static, event)
    return database


def _add_range(
    database: Database,
    type: PointType,
    spec: Mapping[str, Any],
    where: str,
    static: int | None,
    event: int | None,
) -> None:
    only(spec, _COUNT_KEYS, where)
    count = whole(spec.get("count"), f"{where}.count", 0, 65536)
    start = whole(spec.get("start", 0), f"{where}.start", 0, 65535)
    if start + count > 65536:
        raise ConfigError(f"{where}: indices {start}..{start + count - 1} go past 65535")
    item = {k: v for k, v in spec.items() if k not in ("count", "start")}
    for index in range(start, start + count):
        _add_point(database, type, {**item, "index": index}, where, static, event)


def _add_point(
    database: Database,
    type: PointType,
    item: Mapping[str, Any],
    where: str,
    static: int | None,
    event: int | None,
) -> None:
    only(item, _POINT_KEYS, where)
    index = whole(item.get("index"), f"{where}.index", 0, 65535)
    event_class = whole(item.get("class", 1), f"{where}.class", 0, 3)
    flags = whole(item.get("flags", ONLINE), f"{where}.flags", 0, 255)
    deadband = number(item.get("deadband", 0), f"{where}.deadband")
    value = _value(type, item.get("value"), f"{where}.value")
    static_variation = item.get("static_variation", static)
    event_variation = item.get("event_variation", event)
    if static_variation is not None:
        static_variation = whole(static_variation, f"{where}.static_variation", 1, 255)
    if event_variation is not None:
        event_variation = whole(event_variation, f"{where}.event_variation", 1, 255)
    try:
        database.add(
            type,
            index,
            value,
            flags=flags,
            event_class=event_class,
            static_variation=static_variation,
            event_variation=event_variation,
            deadband=deadband,
        )
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _event_buffer(spec: object) -> dict[int, int]:
    if isinstance(spec, dict):
        only(spec, {"1", "2", "3"}, "event_buffer")
        return {
            int(c): whole(spec.get(c, 100), f"event_buffer.{c}", 1, 1_000_000)
            for c in ("1", "2", "3")
        }
    size = whole(spec, "event_buffer", 1, 1_000_000)
    return {1: size, 2: size, 3: size}


def parse_variations(spec: object) -> Variations:
    """The ``variations`` object: static and event variation by point type."""
    table = mapping(spec, "variations")
    out: dict[PointType, tuple[int | None, int | None]] = {}
    for key, value in table.items():
        if key not in POINT_TYPES:
            raise ConfigError(f"variations.{key}: unknown point type")
        entry = mapping(value, f"variations.{key}")
        only(entry, {"static", "event"}, f"variations.{key}")
        static = entry.get("static")
        event = entry.get("event")
        out[key] = (
            None if static is None else whole(static, f"variations.{key}.static", 1, 255),
            None if event is None else whole(event, f"variations.{key}.event", 1, 255),
        )
    return out


def _value(type: PointType, raw: object, where: str) -> Value | None:
    if raw is None:
        return None
    if type in ("bi", "bo"):
        if not isinstance(raw, bool):
            raise ConfigError(f"{where}: a binary value is true or false, not {raw!r}")
        return raw
    if type == "dbi":
        return whole(raw, where, 0, 3)
    if type in ("counter", "frozen"):
        return whole(raw, where, 0, 0xFFFFFFFF)
    return number(raw, where)
