"""``write_time``: on NEED_TIME, synchronize the outstation's clock by the procedure the
settings pick (``time_procedure``: LAN, RECORD_CURRENT_TIME then a g50v3 write; or non-LAN,
DELAY_MEASURE then a g50v1 write), as :func:`gridwire.master.timesync.synchronize_time`
does; the write goes only after a complete answer to the first request that refuses nothing.

Priority 4: after the integrity polls, before unsolicited reporting and event reads. It
writes: off, and refused by name, without control.
"""

from __future__ import annotations

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.master.session_protocol import Body, SessionLike
from gridwire.master.tasks.base import Task, TaskContext
from gridwire.master.timesync import synchronize_time


class WriteTime(Task):
    name = "write_time"
    priority = 4
    indication = IIN.NEED_TIME
    writes = True

    def request(self, context: TaskContext) -> tuple[FunctionCode, Body]:
        """The first of its two requests (the second depends on the answer)."""
        if context.time_procedure == "non_lan":
            return FunctionCode.DELAY_MEASURE, b""
        return FunctionCode.RECORD_CURRENT_TIME, b""

    async def perform(self, session: SessionLike, context: TaskContext) -> None:
        await synchronize_time(session, context.time_procedure)
