"""``startup``: the integrity poll (classes 1, 2, 3, then 0) when a connection is made.

Priority 2: after clearing a restart, which says the outstation lost its state, and before
everything else, since it reads that state. One integrity poll does the work of
``integrity_on_overflow`` too.
"""

from __future__ import annotations

from typing import ClassVar

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master.scans import integrity_body
from gridwire.master.session_protocol import Body
from gridwire.master.tasks.base import Task, TaskContext


class Startup(Task):
    name = "startup"
    priority = 2
    on_connect = True
    same_work: ClassVar[frozenset[str]] = frozenset({"integrity_on_overflow"})

    def request(self, context: TaskContext) -> tuple[FunctionCode, Body]:
        return FunctionCode.READ, integrity_body()
