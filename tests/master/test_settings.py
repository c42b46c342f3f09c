"""Outstation settings and the tasks in force, as the spec's Resources section and the
master's API contract give them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gridwire.errors import NotAllowed, RequestError
from gridwire.master.settings import OutstationSettings, TaskSettings


def settings(**fields: object) -> OutstationSettings:
    return OutstationSettings.model_validate(
        {"name": "o", "host": "127.0.0.1", "port": 2, **fields}
    )


def test_defaults_of_the_spec() -> None:
    s = settings()
    assert s.reconnect == 5.0
    assert s.read_retries == 0
    assert (s.outstation_address, s.master_address) == (1024, 1)
    assert s.response_timeout == 5.0
    assert s.confirms is True
    assert s.tls is None


def test_writing_tasks_follow_control() -> None:
    without = settings().effective_tasks(allow_control=False)
    assert without.model_dump() == {
        "startup": True,
        "clear_restart": False,
        "write_time": False,
        "events_when_indicated": True,
        "integrity_on_overflow": True,
        "enable_unsolicited": [],
    }
    with_control = settings().effective_tasks(allow_control=True)
    assert with_control.clear_restart and with_control.write_time


@pytest.mark.parametrize("task", ["clear_restart", "write_time"])
def test_asking_for_a_writing_task_without_control_is_refused(task: str) -> None:
    with pytest.raises(NotAllowed):
        settings(tasks={task: True}).effective_tasks(allow_control=False)
    # Turning it off is harmless and accepted.
    assert getattr(settings(tasks={task: False}).effective_tasks(False), task) is False
    assert getattr(settings(tasks={task: True}).effective_tasks(True), task) is True


def test_manual_turns_everything_off_but_keeps_what_is_given() -> None:
    s = settings(manual=True, tasks={"startup": True}, confirm=True)
    tasks = s.effective_tasks(allow_control=True)
    assert tasks.startup is True
    assert not (tasks.clear_restart or tasks.write_time or tasks.events_when_indicated)
    assert tasks.enable_unsolicited == []
    assert s.confirms is True
    assert settings(manual=True).confirms is False


def test_merge_and_its_errors() -> None:
    base = TaskSettings.defaults(False)
    merged = base.merged({"enable_unsolicited": [3, 1, 1]}, allow_control=False)
    assert merged.enable_unsolicited == [1, 3]
    assert merged.startup is True
    with pytest.raises(RequestError, match="unknown task bogus"):
        base.merged({"bogus": True}, allow_control=False)
    with pytest.raises(RequestError, match="startup"):
        base.merged({"startup": "yes"}, allow_control=False)
    with pytest.raises(RequestError, match="class 4"):
        base.merged({"enable_unsolicited": [4]}, allow_control=False)


def test_validation_of_the_model() -> None:
    for bad in ({"port": 0}, {"reconnect": 0}, {"tasks": {"nope": 1}}, {"extra": 1}):
        with pytest.raises(ValidationError):
            settings(**bad)
    assert settings(reconnect=None).reconnect is None
    assert settings(integrity_interval=2, output_interval=5).schedules() == {
        "integrity": 2,
        "outputs": 5,
    }


@pytest.mark.parametrize("seconds", [1e-9, 0.05, 0.0999, 0, -1, float("inf"), float("nan"), 1e9])
def test_reconnect_is_between_a_tenth_of_a_second_and_a_day(seconds: float) -> None:
    """A reconnection every 1e-9 s against a refused port would spin as fast as connections
    fail (issue 9 item 8's shape); nor is a wait beyond a day a reconnection."""
    with pytest.raises(ValidationError, match="reconnect"):
        OutstationSettings(name="o", host="h", port=1, reconnect=seconds)
    assert OutstationSettings(name="o", host="h", port=1, reconnect=0.1).reconnect == 0.1
    assert OutstationSettings(name="o", host="h", port=1, reconnect=None).reconnect is None
