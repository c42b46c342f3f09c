"""What the master does for an outstation by itself: the automatic tasks, one module each
(:mod:`.base` says what a task is, :mod:`.catalogue` lists them), the model of their settings
(:mod:`.settings`), and :class:`~gridwire.master.tasks.runner.TaskRunner`, which decides when
each runs. The scans on a schedule are not tasks: :mod:`gridwire.master.schedules`.
"""

from __future__ import annotations

from gridwire.master.tasks.base import Task, TaskContext
from gridwire.master.tasks.catalogue import BY_NAME, PRIORITY, TASK_NAMES, TASKS, WRITING_TASKS
from gridwire.master.tasks.runner import TaskRunner
from gridwire.master.tasks.settings import TaskSettings

__all__ = [
    "BY_NAME",
    "PRIORITY",
    "TASKS",
    "TASK_NAMES",
    "WRITING_TASKS",
    "Task",
    "TaskContext",
    "TaskRunner",
    "TaskSettings",
]
