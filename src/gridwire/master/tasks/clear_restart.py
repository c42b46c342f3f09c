"""``clear_restart``: on DEVICE_RESTART, write 0 to the restart indication (g80v1 index 7).

Priority 1: the restart indication says the outstation lost its state, so it is answered
before anything reads that state. It writes: off, and refused by name, without control.
"""

from __future__ import annotations

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.master.scans import clear_restart_body
from gridwire.master.session_protocol import Body
from gridwire.master.tasks.base import Task, TaskContext


class ClearRestart(Task):
    name = "clear_restart"
    priority = 1
    indication = IIN.DEVICE_RESTART
    writes = True

    def request(self, context: TaskContext) -> tuple[FunctionCode, Body]:
        return FunctionCode.WRITE, clear_restart_body()
