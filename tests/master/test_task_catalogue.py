"""The automatic tasks as a list (gridwire.master.tasks): each task's request laid out by
hand, and the settings, the writing tasks and the priority order read from the list (D15).

Requests are compared as object headers after the function code: g60v1..v4 (class 0, 1, 2,
3 data) 3C 01..04 with qualifier 06 (all objects); g80v1 (internal indications) 50 01,
qualifier 00 (one-octet start and stop) 07 07, then the packed bit 00 (restart cleared).
"""

from __future__ import annotations

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.master.settings import TaskSettings
from gridwire.master.tasks import BY_NAME, PRIORITY, TASK_NAMES, TASKS, WRITING_TASKS, TaskContext
from gridwire.operations.params import TaskChoices
from tests.master.fakes import FakeSession, Reply

NOTHING = IIN(0)


def context(setting: object = True, iin: IIN = NOTHING, procedure: str = "lan") -> TaskContext:
    return TaskContext(setting, iin, procedure)


def test_the_settings_and_the_order_come_from_the_list() -> None:
    assert TASK_NAMES == (
        "startup",
        "clear_restart",
        "write_time",
        "events_when_indicated",
        "integrity_on_overflow",
        "enable_unsolicited",
    )
    assert tuple(TaskSettings.model_fields) == TASK_NAMES
    # The service's set_tasks parameters name the same tasks.
    assert tuple(TaskChoices.model_fields) == TASK_NAMES
    assert sorted(WRITING_TASKS) == ["clear_restart", "write_time"]
    assert PRIORITY == (
        "clear_restart",
        "startup",
        "integrity_on_overflow",
        "write_time",
        "enable_unsolicited",
        "events_when_indicated",
    )
    assert [t.name for t in TASKS if t.on_connect] == ["startup", "enable_unsolicited"]
    # The defaults (tests/master/test_settings.py): the writing tasks off without control.
    assert TaskSettings().model_dump() == TaskSettings.defaults(False).model_dump()
    assert TaskSettings.defaults(True).model_dump()["clear_restart"] is True
    assert not any(TaskSettings.none().enabled(name) for name in TASK_NAMES)


def test_each_task_asks_for_what_it_should() -> None:
    integrity = bytes.fromhex("3c 02 06 3c 03 06 3c 04 06 3c 01 06")
    assert BY_NAME["startup"].request(context()) == (FunctionCode.READ, integrity)
    assert BY_NAME["integrity_on_overflow"].request(context()) == (FunctionCode.READ, integrity)
    assert BY_NAME["clear_restart"].request(context()) == (
        FunctionCode.WRITE,
        bytes.fromhex("50 01 00 07 07 00"),
    )
    assert BY_NAME["enable_unsolicited"].request(context([1, 3])) == (
        FunctionCode.ENABLE_UNSOLICITED,
        bytes.fromhex("3c 02 06 3c 04 06"),
    )
    events = BY_NAME["events_when_indicated"]
    both = IIN.CLASS_2_EVENTS | IIN.CLASS_3_EVENTS | IIN.NEED_TIME
    assert events.request(context(iin=both)) == (
        FunctionCode.READ,
        bytes.fromhex("3c 03 06 3c 04 06"),
    )
    assert events.request(context(iin=IIN.NEED_TIME)) is None


async def test_a_task_performs_its_request_tagged_with_its_name() -> None:
    # The answer: C0 (FIR|FIN, seq 0) 81 (RESPONSE), IIN 00 00.
    session = FakeSession([Reply([bytes.fromhex("c0 81 00 00")])])
    await BY_NAME["events_when_indicated"].perform(session, context(iin=IIN.CLASS_1_EVENTS))
    assert [(s.function, s.body, s.task) for s in session.sent] == [
        (FunctionCode.READ, bytes.fromhex("3c 02 06"), "events_when_indicated")
    ]
    # Nothing indicated: nothing asked.
    await BY_NAME["events_when_indicated"].perform(session, context())
    assert len(session.sent) == 1


async def test_write_time_starts_with_the_request_it_names() -> None:
    task = BY_NAME["write_time"]
    for procedure, first in (
        ("lan", FunctionCode.RECORD_CURRENT_TIME),
        ("non_lan", FunctionCode.DELAY_MEASURE),
    ):
        session = FakeSession([Reply()])  # no answer: nothing is written after it
        await task.perform(session, context(procedure=procedure))
        assert task.request(context(procedure=procedure)) == (first, b"")
        assert [(s.function, s.body) for s in session.sent] == [(first, b"")]


def test_what_settles_a_task() -> None:
    overflow, events = BY_NAME["integrity_on_overflow"], BY_NAME["events_when_indicated"]
    assert overflow.settles("startup", 0) and overflow.settles("integrity_on_overflow", 9)
    assert not overflow.settles(None, 0) and not overflow.settles("write_time", 0)
    assert events.settles("events_when_indicated", 0)
    assert not events.settles("events_when_indicated", 3)  # it returned events: read again
    assert BY_NAME["clear_restart"].settles("clear_restart", 0)
    assert not BY_NAME["clear_restart"].settles("startup", 0)
