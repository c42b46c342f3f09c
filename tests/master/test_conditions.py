"""wait_for's conditions: validation (exactly one condition, at most one comparison) and
judging them against the store, the event log and the last indications."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.app.iin import IIN
from gridwire.errors import RequestError
from gridwire.master.conditions import (
    EventCondition,
    IndicationCondition,
    ValueCondition,
    WaitParameters,
    Watch,
    condition_from,
    wait,
)
from gridwire.master.store import EventLog, ValueStore
from gridwire.process.clock import SystemClock

# C3 81 | IIN 10 00 (IIN1.4 NEED_TIME) | g30v1 analog input 5 = 42 (flags 01 ONLINE) |
# g1v2 binary input 0 = 1 (0x81: state bit 7 and ONLINE)
STATIC = bytes.fromhex("c38110001e01000505012a000000010200000081")
# C4 81 | IIN 00 00 | g32v1 analog event, index 5 = 43 | g2v1 binary event index 0 = 0
EVENTS = bytes.fromhex("c48100002001170105012b000000020117010001")


def fed(*fragments: bytes) -> tuple[ValueStore, EventLog, IIN | None]:
    store, log, last = ValueStore(), EventLog(), None
    for fragment in fragments:
        response = parse_response(fragment)
        assert response.undecoded == []
        store.update(response.objects, now=0.0)
        log.add(response.objects)
        last = response.iin
    return store, log, last


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ({"type": "ai", "index": 5}, True),
        ({"type": "ai", "index": 6}, False),
        ({"type": "ai", "index": 5, "equals": 42}, True),
        ({"type": "ai", "index": 5, "equals": 42.0}, True),
        ({"type": "ai", "index": 5, "equals": 41}, False),
        ({"type": "ai", "index": 5, "tolerance": 0.5, "value": 42.4}, True),
        ({"type": "ai", "index": 5, "tolerance": 0.5, "value": 42.6}, False),
        ({"type": "ai", "index": 5, "at_least": 42}, True),
        ({"type": "ai", "index": 5, "at_least": 42.01}, False),
        ({"type": "ai", "index": 5, "at_most": 42}, True),
        ({"type": "ai", "index": 5, "at_most": 41.9}, False),
        ({"type": "bi", "index": 0, "equals": True}, True),
        ({"type": "bi", "index": 0, "equals": False}, False),
        ({"type": "bi", "index": 0, "equals": 1}, False),  # a state is not a number
        ({"type": "bo", "index": 0}, False),
    ],
)
def test_value_condition(condition: dict[str, object], holds: bool) -> None:
    store, log, last = fed(STATIC)
    watch = Watch(ValueCondition.model_validate(condition), store, log)
    assert watch.holds(last, now=0.5) is holds
    if condition["index"] == 5:
        assert watch.point is not None
        assert (watch.point.value, watch.point.age_ms) == (42, 500.0)


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "ai", "index": 5, "equals": 1, "at_least": 0},
        {"type": "ai", "index": 5, "at_least": 1, "at_most": 2},
        {"type": "ai", "index": 5, "tolerance": 1},
        {"type": "ai", "index": 5, "value": 1},
        {"type": "ai", "index": 5, "tolerance": -1, "value": 1},
        {"type": "analog", "index": 5},
        {"type": "ai", "index": -1},
        {"type": "ai", "index": 5, "below": 3},
    ],
)
def test_value_condition_refuses(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ValueCondition.model_validate(bad)


def test_event_condition_counts_only_events_after_the_wait_began() -> None:
    store, log, last = fed(STATIC, EVENTS)
    watch = Watch(EventCondition(), store, log)
    assert not watch.holds(last)  # the two events came before the watch
    response = parse_response(EVENTS)
    log.add(response.objects)
    assert watch.holds(last)
    assert [(o.type, o.index, o.value) for o in watch.events] == [("ai", 5, 43), ("bi", 0, False)]
    only_ai = Watch(EventCondition(type="ai", index=5), store, log)
    log.add(parse_response(EVENTS).objects)
    assert only_ai.holds(last)
    assert [(o.type, o.index) for o in only_ai.events] == [("ai", 5)]
    none = Watch(EventCondition(type="ai", index=4), store, log)
    log.add(parse_response(EVENTS).objects)
    assert not none.holds(last)


def test_indication_condition() -> None:
    store, log, last = fed(STATIC)
    assert last == IIN.NEED_TIME
    assert Watch(IndicationCondition(name="need_time"), store, log).holds(last)
    assert not Watch(IndicationCondition(name="NEED_TIME", set=False), store, log).holds(last)
    assert Watch(IndicationCondition(name="DEVICE_RESTART", set=False), store, log).holds(last)
    store, log, last = fed(STATIC, EVENTS)  # the last response has no indication set
    assert not Watch(IndicationCondition(name="NEED_TIME"), store, log).holds(last)
    # Before any response there is no last response: neither form holds.
    assert not Watch(IndicationCondition(name="NEED_TIME", set=False), store, log).holds(None)
    with pytest.raises(ValidationError, match="unknown indication"):
        IndicationCondition(name="NEEDS_TIME")


def test_exactly_one_condition() -> None:
    with pytest.raises(ValidationError, match="exactly one"):
        WaitParameters.model_validate({"timeout": 1})
    with pytest.raises(ValidationError, match="exactly one"):
        WaitParameters.model_validate(
            {"timeout": 1, "event": {}, "indication": {"name": "NEED_TIME"}}
        )
    params = WaitParameters.model_validate({"timeout": 1, "event": {"type": "bi"}})
    assert params.condition == EventCondition(type="bi")
    with pytest.raises(ValidationError):
        WaitParameters.model_validate({"timeout": -1, "event": {}})
    with pytest.raises(RequestError, match="exactly one of value, event, indication"):
        condition_from()
    with pytest.raises(RequestError, match="exactly one"):
        condition_from(value={"type": "ai", "index": 1}, event={})
    with pytest.raises(RequestError, match="tolerance"):
        condition_from(value={"type": "ai", "index": 1, "tolerance": 2})
    assert condition_from(indication={"name": "NEED_TIME"}) == IndicationCondition(name="NEED_TIME")


async def test_wait_returns_once_the_condition_holds() -> None:
    store, log, _ = fed()
    changed = asyncio.Event()

    async def changes() -> None:
        changed.clear()
        await changed.wait()

    async def report_later() -> None:
        await asyncio.sleep(0.05)
        store.update(parse_response(STATIC).objects, now=SystemClock().monotonic())
        changed.set()

    watch = Watch(ValueCondition(type="ai", index=5, at_least=40), store, log)
    task = asyncio.create_task(report_later())
    result = await wait(
        watch, 30.0, indications=lambda: IIN(0), changed=changes, clock=SystemClock()
    )
    await task
    assert result.held
    assert result.point is not None and result.point.value == 42
    assert result.elapsed_ms < 30_000
    assert result.indications == []


async def test_wait_times_out_with_the_condition_unmet() -> None:
    store, log, last = fed(STATIC)

    async def nothing() -> None:
        await asyncio.Event().wait()

    watch = Watch(ValueCondition(type="ai", index=5, equals=7), store, log)
    result = await wait(watch, 0.1, indications=lambda: last, changed=nothing, clock=SystemClock())
    assert not result.held
    assert result.elapsed_ms >= 100
    assert result.indications == ["NEED_TIME"]
    assert result.point is not None and result.point.value == 42  # the point as it stands
