"""The task runner alone: which indications make which task due, in what order tasks run, and
the rules that keep an outstation holding an indication from being asked forever (D15).

The runner is driven as the session drives it: ``connected``, ``indicated`` with the IIN of
each response (and the task whose request it answers), ``set`` for new task settings. Its
``perform`` here only records the names it is asked to run.
"""

from __future__ import annotations

import asyncio

from gridwire.dnp3.app.iin import IIN
from gridwire.master.settings import TaskSettings
from gridwire.master.tasks import TaskRunner


class Recorder:
    def __init__(self) -> None:
        self.ran: list[str] = []

    async def __call__(self, name: str) -> None:
        self.ran.append(name)


def runner(**tasks: object) -> tuple[TaskRunner, Recorder]:
    recorder = Recorder()
    settings = TaskSettings.none().model_copy(update=tasks)
    return TaskRunner(recorder, settings), recorder


async def settle(run: TaskRunner) -> None:
    await asyncio.wait_for(run.idle(), 2)


async def test_indications_make_their_tasks_due_in_priority_order() -> None:
    run, rec = runner(
        startup=True,
        clear_restart=True,
        write_time=True,
        events_when_indicated=True,
        integrity_on_overflow=True,
    )
    iin = IIN.CLASS_2_EVENTS | IIN.NEED_TIME | IIN.DEVICE_RESTART | IIN.EVENT_BUFFER_OVERFLOW
    run.indicated(iin)
    assert run.due == [
        "clear_restart",
        "integrity_on_overflow",
        "write_time",
        "events_when_indicated",
    ]
    await settle(run)
    assert rec.ran == [
        "clear_restart",
        "integrity_on_overflow",
        "write_time",
        "events_when_indicated",
    ]


async def test_a_task_is_not_made_due_by_the_answer_to_its_own_request() -> None:
    run, rec = runner(clear_restart=True, write_time=True, integrity_on_overflow=True)
    # Each answers its own request with its indication still set: nothing is due again.
    run.indicated(IIN.DEVICE_RESTART, task="clear_restart")
    run.indicated(IIN.NEED_TIME, task="write_time")
    run.indicated(IIN.EVENT_BUFFER_OVERFLOW, task="integrity_on_overflow")
    # The startup integrity poll reads everything too: it settles an overflow.
    run.indicated(IIN.EVENT_BUFFER_OVERFLOW, task="startup")
    assert run.due == []
    # The same indications in the answer to anything else do.
    run.indicated(IIN.DEVICE_RESTART | IIN.EVENT_BUFFER_OVERFLOW, task="write_time")
    assert run.due == ["clear_restart", "integrity_on_overflow"]
    await settle(run)
    assert rec.ran == ["clear_restart", "integrity_on_overflow"]


async def test_an_event_read_that_returned_events_is_followed_by_another() -> None:
    run, rec = runner(events_when_indicated=True)
    run.indicated(IIN.CLASS_1_EVENTS, task="events_when_indicated", objects=20)
    assert run.due == ["events_when_indicated"]
    await settle(run)
    # One that returned nothing while the outstation still says it has events: no more.
    run.indicated(IIN.CLASS_1_EVENTS, task="events_when_indicated", objects=0)
    assert run.due == []
    assert rec.ran == ["events_when_indicated"]


async def test_tasks_turned_off_are_not_made_due_and_due_ones_are_dropped() -> None:
    run, rec = runner(clear_restart=True)
    run.indicated(IIN.DEVICE_RESTART | IIN.NEED_TIME)  # write_time is off
    assert run.due == ["clear_restart"]
    run.set(run.tasks.model_copy(update={"clear_restart": False}))
    assert run.due == []
    await settle(run)
    assert rec.ran == []


async def test_a_task_turned_on_acts_on_the_last_response_of_the_connection() -> None:
    run, rec = runner()
    run.indicated(IIN.NEED_TIME)
    run.indicated(IIN.DEVICE_RESTART)  # the last response: NEED_TIME is no longer said
    run.set(run.tasks.model_copy(update={"clear_restart": True, "write_time": True}))
    assert run.due == ["clear_restart"]
    await settle(run)
    # Already on: setting it again does nothing more.
    run.set(run.tasks.model_copy(update={"clear_restart": True}))
    assert run.due == []
    # A new connection starts from no indication at all.
    run.set(TaskSettings.none())
    run.disconnected()
    run.set(run.tasks.model_copy(update={"clear_restart": True}))
    assert run.due == []
    assert rec.ran == ["clear_restart"]


async def test_connecting_makes_the_connect_tasks_due_and_one_poll_serves_both() -> None:
    run, rec = runner(startup=True, integrity_on_overflow=True, enable_unsolicited=[1, 2])
    run.indicated(IIN.EVENT_BUFFER_OVERFLOW)
    run.connected()
    assert run.due == ["startup", "integrity_on_overflow", "enable_unsolicited"]
    await settle(run)
    assert rec.ran == ["startup", "enable_unsolicited"]
