"""The generic database's JSON format (docs/outstation.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.errors import ConfigError
from gridwire.outstation.database_file import database_from_json, load_database
from gridwire.outstation.points import POINT_TYPES


def test_counts_settings_and_explicit_points(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    path.write_text(
        json.dumps(
            {
                "event_buffer": {"1": 10, "2": 20, "3": 30},
                "variations": {"ai": {"static": 5, "event": 7}},
                "points": {
                    "bi": 3,
                    "counter": {"count": 2, "start": 10, "class": 3, "deadband": 5},
                    "ai": [
                        {"index": 7, "class": 2, "value": 12.5, "deadband": 0.5},
                        {"index": 9, "static_variation": 1, "flags": 0},
                    ],
                    "dbi": [{"index": 0, "value": 2}],
                },
            }
        )
    )
    db = load_database(path)
    assert db.indices("bi") == [0, 1, 2]
    assert db.indices("counter") == [10, 11]
    counter = db.get("counter", 11)
    assert (counter.event_class, counter.deadband) == (3, 5.0)
    seven = db.get("ai", 7)
    assert (seven.value, seven.event_class, seven.static_variation, seven.event_variation) == (
        12.5,
        2,
        5,
        7,
    )
    nine = db.get("ai", 9)
    assert (nine.static_variation, nine.event_variation, nine.flags) == (1, 7, 0)
    assert db.get("dbi", 0).value == 2
    assert db.events.capacity == {1: 10, 2: 20, 3: 30}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"points": {"xx": 3}}, "points.xx: unknown point type"),
        ({"points": {"ai": [{"index": 1}, {"index": 1}]}}, "ai 1 is defined twice"),
        ({"points": {"ai": [{"index": 1, "class": 4}]}}, "points.ai[0].class: 4 is outside 0..3"),
        ({"points": {"bi": [{"index": 1, "value": 3}]}}, "a binary value is true or false"),
        ({"points": {"ai": [{"index": 70000}]}}, "points.ai[0].index: 70000 is outside"),
        ({"points": {"ai": [{"index": 1, "static_variation": 9}]}}, "static variation 9"),
        ({"points": {"bi": [{"index": 1, "event_variation": 3, "colour": 1}]}}, "'colour'"),
        ({"points": {"ai": {"count": 3, "start": 65535}}}, "go past 65535"),
        ({"event_buffer": 0}, "event_buffer: 0 is outside"),
        ({"points": {"ai": [{"index": 1, "deadband": -1}]}}, "deadband -1"),
        ([], "expected an object"),
    ],
)
def test_mistakes_are_named(document: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        database_from_json(document)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(ConfigError, match="cannot read database file"):
        load_database(missing)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="is not JSON"):
        load_database(bad)


def test_default_database_has_every_type() -> None:
    db = database_from_json({"points": dict.fromkeys(POINT_TYPES, 2)})
    assert all(db.count(t) == 2 for t in POINT_TYPES)
