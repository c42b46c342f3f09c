"""process.flag.Flag against asyncio.Event, which it stands in for (D238): the same steps on
both (set, clear, a new waiter, a waiter cancelled, the loop let run) leave the same waiters
done, cancelled and pending; and a Flag holds no list of waiters but while one waits."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.process.flag import Flag

STEPS = st.lists(
    st.sampled_from(["set", "clear", "wait", "cancel", "run"]), min_size=1, max_size=30
)


async def _play(flag: Any, steps: list[str]) -> list[list[str]]:
    waiters: list[asyncio.Task[Any]] = []
    seen: list[list[str]] = []
    for step in steps:
        if step == "set":
            flag.set()
        elif step == "clear":
            flag.clear()
        elif step == "wait":
            waiters.append(asyncio.ensure_future(flag.wait()))
        elif step == "cancel" and waiters:
            waiters[len(waiters) // 2].cancel()
        else:
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        seen.append([_state(task) for task in waiters] + [str(flag.is_set())])
    for task in waiters:
        task.cancel()
    await asyncio.gather(*waiters, return_exceptions=True)
    return seen


def _state(task: asyncio.Task[Any]) -> str:
    if not task.done():
        return "pending"
    return "cancelled" if task.cancelled() else repr(task.result())


@given(STEPS, st.booleans())
@settings(max_examples=150, deadline=None)
def test_a_flag_does_what_an_asyncio_event_does(steps: list[str], first: bool) -> None:
    async def both() -> None:
        event = asyncio.Event()
        if first:
            event.set()
        assert await _play(Flag(first), steps) == await _play(event, steps)

    asyncio.run(both())


async def test_a_waiter_woken_returns_true_though_cleared_before_it_ran() -> None:
    flag = Flag()
    waiter = asyncio.ensure_future(flag.wait())
    await asyncio.sleep(0)
    flag.set()
    flag.clear()
    assert await waiter is True and not flag.is_set()


async def test_no_list_of_waiters_is_held_but_while_one_waits() -> None:
    flag = Flag(True)
    assert await flag.wait() is True and flag._waiters is None
    flag.clear()
    waiter = asyncio.ensure_future(flag.wait())
    await asyncio.sleep(0)
    assert flag._waiters is not None and len(flag._waiters) == 1
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    assert flag._waiters == []
    flag.set()
    assert flag._waiters is None
