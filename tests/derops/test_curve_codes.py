"""The fallback names of the curve block's codes (gridwire.derops.curve_codes) against a list
we did not write: VOLTTRON's MESA point list (shared test data, Apache-2.0), whose AO245
(curve type), AO247 (X units) and AO248 (Y units) enumerate the codes AN2018 publishes. The
codes must be the same; the names are our own words, so only a few key words are compared."""

from __future__ import annotations

import json

import pytest

from gridwire.derops.curve_codes import CURVE_TYPES, X_UNITS, Y_UNITS
from tests.support.shared import shared_file


def published(index: int) -> dict[int, str]:
    path = shared_file("data/an2018/volttron-mesa-points.json")
    for point in json.loads(path.read_text(encoding="utf-8")):
        if point["data_type"] == "AO" and point["index"] == index and "allowed_values" in point:
            return {int(code): name for code, name in point["allowed_values"].items()}
    raise AssertionError(f"AO{index} has no enumeration in VOLTTRON's list")


@pytest.mark.parametrize(
    ("index", "ours"), [(245, CURVE_TYPES), (247, X_UNITS), (248, Y_UNITS)], ids=str
)
def test_the_codes_are_the_published_ones(index: int, ours: dict[int, str]) -> None:
    assert sorted(ours) == sorted(published(index))


def test_the_names_say_the_same_thing() -> None:
    assert "Volt-Var" in published(245)[2] and CURVE_TYPES[2] == "Volt-var"
    assert "Percent Voltage" in published(247)[129] and "nominal voltage" in X_UNITS[129]
    assert "VARMax" in published(248)[2] and "VARMax" in Y_UNITS[2]
    assert "Watts as percent of max Watts" in published(248)[5] and "WMax" in Y_UNITS[5]
