"""``enable_unsolicited``: when a connection is made, ENABLE_UNSOLICITED for the event
classes its setting lists (on when the list is not empty; off by default).

Priority 5: after the polls that read the outstation's state and the clock, so events it
then reports by itself follow what was read.
"""

from __future__ import annotations

from typing import Any, ClassVar

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master.scans import unsolicited_body
from gridwire.master.session_protocol import Body
from gridwire.master.tasks.base import Task, TaskContext


class EnableUnsolicited(Task):
    name = "enable_unsolicited"
    priority = 5
    on_connect = True
    setting: ClassVar[Any] = list[int]
    default: ClassVar[Any] = []
    off: ClassVar[Any] = []

    def validate(self, value: Any) -> Any:
        """The classes, each 1, 2 or 3, sorted, each once."""
        for number in value:
            if number not in (1, 2, 3):
                raise ValueError(f"event class {number} is not 1, 2 or 3")
        return sorted(set(value))

    def request(self, context: TaskContext) -> tuple[FunctionCode, Body]:
        return FunctionCode.ENABLE_UNSOLICITED, unsolicited_body(context.setting)
