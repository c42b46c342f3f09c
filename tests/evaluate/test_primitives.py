"""The shared primitives of the checks (issue 11, "Shared primitives"), each pinned by hand-
worked values: the analog test values for several ranges, the readback tolerance, the curve
count's OUT_OF_RANGE rule, online/offline, accepted/refused, eventually."""

from __future__ import annotations

import asyncio
import time

import pytest

from gridwire.der.points import Kind, Point
from gridwire.derops.readings import DerReading
from gridwire.evaluate.catalogue import CATALOGUE
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.outcomes import Failed
from gridwire.evaluate.primitives import (
    SAMPLE_CURVES,
    accepted,
    count_curves,
    eventually,
    offline,
    online,
    refused,
    test_values,
    tolerance,
    within,
)
from gridwire.master.records import ControlStatus, Exchange, OperateResult


def ao(minimum: float | None, maximum: float | None, multiplier: float = 1.0) -> Point:
    return Point(Kind.AO, 1, "x", minimum=minimum, maximum=maximum, multiplier=multiplier)


@pytest.mark.parametrize(
    ("minimum", "maximum", "values"),
    [
        # low 0, high 1000: span min(1000, 400) = 400 -> 0+100, 0+200
        (0, 1000, (100, 200)),
        # no range: low 0, high 100, span 100 -> 25, 50
        (None, None, (25, 50)),
        # only a minimum: low 50, high 150 -> 75, 100
        (50, None, (75, 100)),
        # only a maximum below 0: high -10 < low 0 -> low -110, span 100 -> -85, -60
        (None, -10, (-85, -60)),
        # a narrow range: span 3 -> low+max(1, 0), low+max(2, 1) = 11, 12
        (10, 13, (11, 12)),
        # an empty range: span 0 -> 6, 7 (beyond the maximum, as the rule says)
        (5, 5, (6, 7)),
        # a 32-bit range: span 400 from the minimum
        (-(2**31), 2**31 - 1, (-(2**31) + 100, -(2**31) + 200)),
        # a range of 600 from -300: span 400 -> -200, -100
        (-300, 300, (-200, -100)),
    ],
)
def test_analog_test_values(
    minimum: float | None, maximum: float | None, values: tuple[int, int]
) -> None:
    assert test_values(ao(minimum, maximum)) == values


def test_readback_tolerance_is_half_the_larger_multiplier() -> None:
    output = ao(0, 100, multiplier=0.1)
    assert tolerance(output, None) == pytest.approx(0.05)
    mirror = Point(Kind.AI, 1, "m", multiplier=0.01)
    assert tolerance(output, mirror) == pytest.approx(0.05)
    coarse = Point(Kind.AI, 1, "m", multiplier=10.0)
    assert tolerance(output, coarse) == pytest.approx(5.0)
    assert within(100.04, 100.0, 0.05) and not within(100.06, 100.0, 0.05)
    assert not within(None, 100.0, 0.05) and not within(float("nan"), 1.0, 1.0)


def _selector(statuses: dict[int, str | None]) -> tuple[list[int], object]:
    asked: list[int] = []

    async def select(number: int) -> str | None:
        asked.append(number)
        return statuses.get(number, "SUCCESS")

    return asked, select


async def test_curve_count_stops_at_the_first_out_of_range() -> None:
    asked, select = _selector({4: "OUT_OF_RANGE"})
    assert await count_curves(select, 64) == 3  # type: ignore[arg-type]
    assert asked == [1, 2, 3, 4]


async def test_curve_count_of_an_outstation_storing_none() -> None:
    asked, select = _selector({1: "OUT_OF_RANGE"})
    assert await count_curves(select, 64) == 0  # type: ignore[arg-type]
    assert asked == [1]


async def test_curve_count_stops_at_the_most_it_may_select() -> None:
    asked, select = _selector({})
    assert await count_curves(select, 5) == 5  # type: ignore[arg-type]
    assert asked == [1, 2, 3, 4, 5]


async def test_any_other_refusal_is_not_no_curves() -> None:
    _, select = _selector({1: "NOT_SUPPORTED"})
    with pytest.raises(Failed, match=r"curve 1 was refused NOT_SUPPORTED, not OUT_OF_RANGE"):
        await count_curves(select, 64)  # type: ignore[arg-type]
    _, select = _selector({3: "BLOCKED"})
    with pytest.raises(Failed, match=r"curve 3 was refused BLOCKED"):
        await count_curves(select, 64)  # type: ignore[arg-type]
    _, select = _selector({2: None})
    with pytest.raises(Failed, match=r"no answer to selecting curve 2"):
        await count_curves(select, 64)  # type: ignore[arg-type]


def reading(flags: list[str] | None, quality: str = "good") -> DerReading:
    return DerReading("AI1", "ai", 1, "x", "x", None, 1, 1, None, flags, quality, None)  # type: ignore[arg-type]


def test_online_and_offline() -> None:
    online(reading(["ONLINE"]))
    online(reading(None, "no_flags"))  # a variation without flags
    with pytest.raises(Failed, match=r"AI1 is not online: flags ONLINE, LOCAL_FORCED"):
        online(reading(["ONLINE", "LOCAL_FORCED"]))
    with pytest.raises(Failed, match=r"flags none"):
        online(reading([], "offline"))
    with pytest.raises(Failed, match=r"AI1 was not reported"):
        online(reading(None, "not_reported"))
    offline(reading([], "offline"))
    with pytest.raises(Failed, match=r"without flags, which says ONLINE"):
        offline(reading(None, "no_flags"))
    with pytest.raises(Failed, match=r"not offline: flags ONLINE"):
        offline(reading(["ONLINE"]))
    with pytest.raises(Failed, match=r"not reported"):
        offline(reading(None, "not_reported"))


def exchange(outcome: str = "complete", indications: list[str] | None = None) -> Exchange:
    return Exchange(
        "DIRECT_OPERATE",
        None,
        0,
        outcome,
        1,
        indications or [],
        1,
        1.0,
        "",
        [],
        [],  # type: ignore[arg-type]
    )


def operate(status: str | None, echoed: bool = True, outcome: str = "complete") -> OperateResult:
    statuses = [] if status is None else [ControlStatus("bo", 5, None, 1, True, status, echoed)]
    return OperateResult("direct", True, status == "SUCCESS", statuses, [exchange(outcome)])


def context() -> CheckContext:
    return CheckContext(CATALOGUE[4], None)  # type: ignore[arg-type]  # notes only


def test_accepted() -> None:
    accepted(operate("SUCCESS"), "the latch of BO5")
    with pytest.raises(Failed, match=r"the latch of BO5 was refused: BO5 BLOCKED"):
        accepted(operate("BLOCKED"), "the latch of BO5")
    with pytest.raises(Failed, match=r"SUCCESS but not as it was sent"):
        accepted(operate("SUCCESS", echoed=False), "the latch of BO5")
    with pytest.raises(Failed, match=r"no answer to the latch of BO5 \(timeout\)"):
        accepted(operate(None, outcome="timeout"), "the latch of BO5")
    with pytest.raises(Failed, match=r"no status came back"):
        accepted(operate(None), "the latch of BO5")


def test_refused() -> None:
    ctx = context()
    refused(ctx, operate("BLOCKED"), "the start", "BLOCKED")
    assert ctx.notes == []
    refused(ctx, operate("NOT_SUPPORTED"), "the start", "BLOCKED")
    assert ctx.notes == ["the start was refused NOT_SUPPORTED, not BLOCKED"]
    with pytest.raises(Failed, match=r"the start was accepted"):
        refused(ctx, operate("SUCCESS"), "the start", "BLOCKED")
    with pytest.raises(Failed, match=r"no answer to the start"):
        refused(ctx, operate(None, outcome="timeout"), "the start", "BLOCKED")


async def test_eventually_retries_until_settle_and_the_last_failure_stands() -> None:
    tries: list[float] = []

    async def never() -> None:
        tries.append(time.monotonic())
        raise Failed(f"try {len(tries)}")

    started = time.monotonic()
    with pytest.raises(Failed) as caught:
        await eventually(1.2, never)
    assert caught.value.detail == f"try {len(tries)}"
    assert 2 <= len(tries) <= 4  # at 0, 0.5, 1.0 s
    assert time.monotonic() - started < 3.0

    count = 0

    async def third() -> str:
        nonlocal count
        count += 1
        if count < 3:
            raise Failed("not yet")
        return "done"

    assert await eventually(5.0, third) == "done"
    assert count == 3
    await asyncio.sleep(0)


def test_sample_curves_are_those_of_the_issue() -> None:
    vw = SAMPLE_CURVES[173]
    assert [(c.type, c.x_units, c.y_units) for c in vw] == [(5, 129, 5), (5, 129, 5)]
    assert vw[0].points == ((1000, 1000), (1060, 1000), (1100, 200))
    assert vw[1].points == ((1000, 1000), (1050, 1000), (1090, 0))
    vv = SAMPLE_CURVES[217]
    assert [(c.type, c.x_units, c.y_units) for c in vv] == [(2, 129, 2), (2, 129, 2)]
    assert vv[0].points == ((920, 300), (980, 0), (1020, 0), (1080, -300))
    assert vv[1].points == ((900, 440), (970, 0), (1030, 0), (1100, -440))
