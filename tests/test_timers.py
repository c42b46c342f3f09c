"""One heap of timers for a loop (gridwire.process.timers, DESIGN D224): every schedule and
every response deadline of a master share it. A timer never runs before its time, runs at
most a tick or so after it (generous bounds: the machine is noisy), in order of time, and
not at all once cancelled; many schedules on it each keep their own interval."""

from __future__ import annotations

import asyncio
import gc

from gridwire.master.schedules import Schedules
from gridwire.process.clock import SYSTEM_CLOCK
from gridwire.process.timers import Timers, timers

LATE = 0.25  # seconds a timer may run after its time on a loaded machine


async def test_timers_run_in_order_of_time_never_early_and_not_once_cancelled() -> None:
    wheel = timers()
    loop = asyncio.get_running_loop()
    ran: list[tuple[str, float]] = []
    asked: dict[str, float] = {}

    def note(name: str) -> None:
        ran.append((name, loop.time()))

    delays = {"c": 0.09, "a": 0.03, "b": 0.031, "d": 0.0, "gone": 0.05}
    entries = {}
    for name, delay in delays.items():
        asked[name] = loop.time() + delay
        entries[name] = wheel.call_later(delay, note, name)
    wheel.cancel(entries["gone"])
    wheel.cancel(entries["gone"])  # twice is nothing more
    await asyncio.sleep(0.2)
    assert [name for name, _ in ran] == ["d", "a", "b", "c"]
    for name, at in ran:
        assert asked[name] <= at < asked[name] + LATE, name
    wheel.cancel(entries["a"])  # after it ran: nothing


async def test_a_timer_armed_by_a_callback_and_one_earlier_than_the_armed_tick_both_run() -> None:
    wheel = timers()
    loop = asyncio.get_running_loop()
    ran: list[str] = []
    wheel.call_later(0.2, ran.append, "late")
    wheel.call_later(0.01, lambda _: wheel.call_later(0.01, ran.append, "chained"), None)
    wheel.call_later(0.005, ran.append, "early")  # earlier than the tick armed for 0.2 s
    started = loop.time()
    await wheel.sleep(0.05)
    assert loop.time() - started >= 0.05
    assert ran == ["early", "chained"]
    await wheel.sleep(0.2)
    assert ran == ["early", "chained", "late"]


async def test_a_callback_that_raises_is_told_and_the_others_due_still_run() -> None:
    loop = asyncio.get_running_loop()
    told: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _, context: told.append(context))
    wheel = Timers(loop)
    ran: list[str] = []

    def fail(_: object) -> None:
        raise RuntimeError("broken")

    wheel.call_later(0.01, fail, None)
    wheel.call_later(0.01, ran.append, "after")
    await asyncio.sleep(0.1)
    assert ran == ["after"]
    assert [str(context["exception"]) for context in told] == ["broken"]


async def test_cancelled_entries_do_not_pile_up() -> None:
    wheel = Timers(asyncio.get_running_loop())
    keep = wheel.call_later(60.0, print, "never")
    for _ in range(1000):
        wheel.cancel(wheel.call_later(30.0, print, "never"))
    assert len(wheel) < 200  # rebuilt once the cancelled were half of it
    wheel.cancel(keep)


async def test_a_sleep_cancelled_is_cancelled_and_its_entry_does_nothing() -> None:
    wheel = timers()
    sleeper = asyncio.ensure_future(wheel.sleep(0.02))
    await asyncio.sleep(0)
    sleeper.cancel()
    await asyncio.sleep(0.06)  # its time passes: nothing raises, nothing is left pending
    assert sleeper.cancelled()


async def test_each_loop_its_own_timers_and_the_same_within_one() -> None:
    here = timers()
    assert timers() is here

    async def there() -> Timers:
        return timers()

    other = await asyncio.to_thread(lambda: asyncio.run(there()))
    assert other is not here and timers() is here
    del other
    gc.collect()


async def test_many_schedules_on_one_heap_each_keep_their_interval() -> None:
    loop = asyncio.get_running_loop()
    times: dict[str, list[float]] = {}

    def scanner(name: str) -> Schedules:
        async def scan(kind: str) -> None:
            times.setdefault(f"{name}/{kind}", []).append(loop.time())

        return Schedules(scan, SYSTEM_CLOCK.monotonic)

    intervals = {"events": 0.1, "integrity": 0.15, "outputs": 0.25}
    schedules = [scanner(f"o{n}") for n in range(50)]
    for each in schedules:
        for kind, interval in intervals.items():
            each.set(kind, interval)
    await asyncio.sleep(0.8)
    for each in schedules:
        each.close()
    assert len(times) == 150
    for key, seen in times.items():
        interval = intervals[key.split("/")[1]]
        # The k-th scan at the first's time plus k intervals: never before it, and late by
        # no more than a loaded loop makes it (no drift: a late one does not delay the next).
        for k, at in enumerate(seen):
            due = seen[0] + k * interval
            assert due - 1e-3 <= at < due + LATE, (key, k, at - due)
        assert 0.8 / interval - 3 <= len(seen) <= 0.8 / interval + 1, (key, len(seen))
