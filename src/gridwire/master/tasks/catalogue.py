"""The automatic tasks, in the order of their settings: everything else about the tasks as a
set (their names, which write, the order they run in) is read from this list.
"""

from __future__ import annotations

from typing import Final

from gridwire.master.tasks.base import Task
from gridwire.master.tasks.clear_restart import ClearRestart
from gridwire.master.tasks.enable_unsolicited import EnableUnsolicited
from gridwire.master.tasks.events_when_indicated import EventsWhenIndicated
from gridwire.master.tasks.integrity_on_overflow import IntegrityOnOverflow
from gridwire.master.tasks.startup import Startup
from gridwire.master.tasks.write_time import WriteTime

TASKS: Final[tuple[Task, ...]] = (
    Startup(),
    ClearRestart(),
    WriteTime(),
    EventsWhenIndicated(),
    IntegrityOnOverflow(),
    EnableUnsolicited(),
)
BY_NAME: Final[dict[str, Task]] = {task.name: task for task in TASKS}
TASK_NAMES: Final = tuple(BY_NAME)
WRITING_TASKS: Final = frozenset(task.name for task in TASKS if task.writes)
"""The tasks that write to the outstation: only a master allowed to command may run them."""
PRIORITY: Final = tuple(task.name for task in sorted(TASKS, key=lambda task: task.priority))
"""The order in which due tasks run."""
ON_CONNECT: Final = tuple(task for task in TASKS if task.on_connect)
INDICATED: Final = tuple(task for task in TASKS if task.indication)


def _check() -> None:
    """The list is one of tasks with distinct names and priorities, whose ``same_work``
    goes both ways."""
    if len(BY_NAME) != len(TASKS) or len({t.priority for t in TASKS}) != len(TASKS):
        raise AssertionError("two tasks share a name or a priority")
    for task in TASKS:
        for other in task.same_work:
            if task.name not in BY_NAME[other].same_work:
                raise AssertionError(f"{task.name} does {other}'s work but not the reverse")


_check()
