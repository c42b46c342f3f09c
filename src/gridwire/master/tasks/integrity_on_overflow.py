"""``integrity_on_overflow``: an integrity poll when the outstation says its event buffer
overflowed (EVENT_BUFFER_OVERFLOW), since events were lost and only the current values can
be trusted.

Priority 3, with ``startup`` (whose poll does the same work, so an answer to either leaves
it settled, and running either drops the other).
"""

from __future__ import annotations

from typing import ClassVar

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.master.scans import integrity_body
from gridwire.master.session_protocol import Body
from gridwire.master.tasks.base import Task, TaskContext


class IntegrityOnOverflow(Task):
    name = "integrity_on_overflow"
    priority = 3
    indication = IIN.EVENT_BUFFER_OVERFLOW
    same_work: ClassVar[frozenset[str]] = frozenset({"startup"})

    def request(self, context: TaskContext) -> tuple[FunctionCode, Body]:
        return FunctionCode.READ, integrity_body()
