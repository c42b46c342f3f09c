"""``events_when_indicated``: on CLASS_1/2/3_EVENTS, read the events of the classes the
indications name.

Priority 6, last: events are read once the state, the clock and reporting are settled. An
answer to its own read that still says events wait does not make it due again, unless that
read returned objects: then the outstation may well have more, and it is read again.
"""

from __future__ import annotations

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import CLASS_EVENTS, IIN
from gridwire.master.scans import class_read
from gridwire.master.session_protocol import Body
from gridwire.master.tasks.base import Task, TaskContext

CLASS_BITS = IIN.CLASS_1_EVENTS | IIN.CLASS_2_EVENTS | IIN.CLASS_3_EVENTS


def classes_indicated(iin: IIN) -> list[int]:
    """The event classes whose events ``iin`` says wait to be read."""
    return [number for number, bit in CLASS_EVENTS.items() if iin & bit]


class EventsWhenIndicated(Task):
    name = "events_when_indicated"
    priority = 6
    indication = CLASS_BITS

    def request(self, context: TaskContext) -> tuple[FunctionCode, Body] | None:
        classes = classes_indicated(context.indications)
        return (FunctionCode.READ, class_read(classes)) if classes else None

    def settles(self, task: str | None, objects: int) -> bool:
        return task == self.name and not objects
