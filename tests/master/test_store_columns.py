"""The value store against the plainest model of it: a dictionary (type, index) -> (latest
object, arrival), fed the same updates. The store keeps dense indexes in lists and the rest
in a dictionary (store._Column); whatever the mix of runs, single points, holes, far and
negative indexes, it must answer as the model does."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.objects.records import DnpObject
from gridwire.master import store as store_module
from gridwire.master.store import ValueStore

TYPES = ("bi", "ai")
INDEXES = st.one_of(
    st.integers(0, 40), st.integers(1000, 1100), st.integers(2000, 5000), st.integers(-3, -1)
)


def _object(point_type: str | None, index: int | None, value: int) -> DnpObject:
    return DnpObject(point_type, 30, 1, index, None, value, ["ONLINE"], None, None, False)


singles = st.tuples(
    st.just("update"),
    st.lists(st.tuples(st.sampled_from((*TYPES, None)), st.one_of(st.none(), INDEXES)), max_size=8),
)
runs = st.tuples(st.just("run"), st.sampled_from(TYPES), INDEXES, st.integers(0, 60))


# The store's real slack, and a small one that sends points aside and brings them back often.
@pytest.mark.parametrize("slack", [4, store_module._SLACK])
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(singles, runs), max_size=25), st.lists(INDEXES, max_size=10))
def test_the_store_answers_as_a_dictionary_of_latest_values(
    slack: int, operations: list[tuple[object, ...]], probes: list[int]
) -> None:
    with mock.patch.object(store_module, "_SLACK", slack):
        _check_against_the_model(operations, probes)


def _check_against_the_model(operations: list[tuple[object, ...]], probes: list[int]) -> None:
    store = ValueStore()
    model: dict[tuple[str, int], tuple[DnpObject, float]] = {}
    value = 0
    for now, operation in enumerate(operations):
        if operation[0] == "update":
            points = operation[1]
            assert isinstance(points, list)
            objects = []
            for point_type, index in points:
                value += 1
                objects.append(_object(point_type, index, value))
            kept = store.update(objects, float(now))
            assert kept == sum(1 for o in objects if o.type is not None and o.index is not None)
            for obj in objects:
                if obj.type is not None and obj.index is not None:
                    model[(obj.type, obj.index)] = (obj, float(now))
        else:
            _, point_type, start, count = operation
            assert isinstance(point_type, str) and isinstance(start, int)
            assert isinstance(count, int)
            objects = []
            for index in range(start, start + count):
                value += 1
                objects.append(_object(point_type, index, value))
            assert store.update_run(point_type, start, objects, float(now)) == count
            for obj in objects:
                assert obj.index is not None
                model[(point_type, obj.index)] = (obj, float(now))
    end = float(len(operations) + 1)
    values = store.values(end)
    assert [(v.type, v.index, v.value, v.age_ms) for v in values] == [
        (key[0], key[1], obj.value, (end - arrived) * 1000.0)
        for key, (obj, arrived) in sorted(model.items())
    ]
    assert len(store) == len(model)
    for point_type in TYPES:
        for index in probes:
            found = store.get(point_type, index, end)
            expected = model.get((point_type, index))
            if expected is None:
                assert found is None
            else:
                assert found is not None and found.value == expected[0].value
                assert found.age_ms == (end - expected[1]) * 1000.0
    assert store.clear() == len(model)
    assert len(store) == 0 and store.values(end) == []


def test_a_run_far_beyond_the_points_held_is_kept_aside_and_found() -> None:
    store = ValueStore()
    store.update_run("ai", 0, [_object("ai", i, i) for i in range(3)], 1.0)
    # 100000 is far past three points and the slack: kept in the sparse part.
    store.update_run("ai", 100_000, [_object("ai", 100_000 + i, -i) for i in range(2)], 2.0)
    assert [(v.index, v.value) for v in store.values(2.0)] == [
        (0, 0),
        (1, 1),
        (2, 2),
        (100_000, 0),
        (100_001, -1),
    ]
    # Filling the indexes up to there makes them dense; the far points are still found.
    store.update_run("ai", 3, [_object("ai", i, i) for i in range(3, 100_000)], 3.0)
    found = store.get("ai", 100_001, 3.0)
    assert found is not None and found.value == -1 and found.age_ms == 1000.0
    assert len(store) == 100_002
