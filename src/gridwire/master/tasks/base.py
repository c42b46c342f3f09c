"""What every automatic task is: one interface, so the runner, the settings and the priority
order are all read from the list of tasks (:mod:`gridwire.master.tasks.catalogue`).

A task is a :class:`Task` subclass, one per module, saying:

- ``name``: the key of its setting and the name its requests carry (``Exchange.task``);
- ``priority``: 1 runs first among the tasks due at once;
- what triggers it: ``on_connect`` (a connection was made) and/or ``indication`` (any of
  these IIN bits in a response, solicited or not);
- ``writes``: whether it writes to the outstation (then it is off, and refused when asked
  for, unless the master may command);
- its setting: ``setting`` (the value's type), ``default`` (its value when nothing is said
  and, for a writing task, control is allowed) and ``off``;
- its request: :meth:`Task.request` gives (function, body) or None for nothing to ask;
  :meth:`Task.perform` sends it (a task of several requests overrides ``perform``);
- what it does with the answer: the session takes every answer in (values, events,
  indications); :meth:`Task.settles` says whether an answer that still carries the task's
  indication leaves it done rather than due again, and ``same_work`` names the tasks whose
  request does this one's work too (so running one drops the other).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.master.session_protocol import Body, SessionLike


@dataclass(slots=True, frozen=True)
class TaskContext:
    """What a task reads when it runs: its own setting's value, the indications of the
    outstation's last response, and the procedure the settings pick for writing the time."""

    setting: Any
    indications: IIN
    time_procedure: str = "lan"


class Task:
    """One automatic task (see the module's notes). Subclasses set the class attributes."""

    name: ClassVar[str]
    priority: ClassVar[int]
    on_connect: ClassVar[bool] = False
    indication: ClassVar[IIN] = IIN(0)
    writes: ClassVar[bool] = False
    setting: ClassVar[Any] = bool
    default: ClassVar[Any] = True
    off: ClassVar[Any] = False
    same_work: ClassVar[frozenset[str]] = frozenset()

    def validate(self, value: Any) -> Any:
        """The setting's value checked (ValueError) and put in its usual form."""
        return value

    def request(self, context: TaskContext) -> tuple[FunctionCode, Body] | None:
        """The request this task makes now, or None when there is nothing to ask."""
        raise NotImplementedError

    async def perform(self, session: SessionLike, context: TaskContext) -> None:
        """Make the task's request (tagged with its name) and wait for its end."""
        request = self.request(context)
        if request is not None:
            function, body = request
            await session.exchange(function, body, task=self.name)

    def settles(self, task: str | None, objects: int) -> bool:
        """Whether a response that carries this task's indication, answering a request made
        by ``task`` (None: not a task's) and holding ``objects``, leaves this task settled
        rather than due again: the answer to its own request, or to one doing its work.
        An outstation that keeps an indication set would otherwise be asked forever."""
        return task == self.name or task in self.same_work

    def __repr__(self) -> str:
        return f"<task {self.name}>"
