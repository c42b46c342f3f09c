"""When the automatic tasks run: :class:`TaskRunner` keeps the set of tasks due and runs them
one at a time, highest priority first, through a ``perform(name)`` coroutine the session
gives it (which makes the requests, each tagged with the task's name). It decides only
*when*; each task's module says *what* (:mod:`gridwire.master.tasks.catalogue`). A task stays
due (and can still be turned off) until the session is free to send it: the runner waits on
``ready()`` before it picks the next one.

- the tasks ``on_connect`` become due when a connection is made (``startup``,
  ``enable_unsolicited``); the others on their ``indication`` in any response, solicited or
  not (``clear_restart`` on DEVICE_RESTART, ``write_time`` on NEED_TIME,
  ``integrity_on_overflow`` on EVENT_BUFFER_OVERFLOW, ``events_when_indicated`` on
  CLASS_1/2/3_EVENTS);
- a task is not made due again by an answer it :meth:`~gridwire.master.tasks.base.Task.settles`
  (its own request's, or one doing its work), or an outstation that keeps an indication set
  after the task ran would be asked forever; running a task drops the tasks of the same work;
- a task turned off while due is dropped, not done; losing the connection drops every task;
- a task turned on (``set``) whose indication the last response of this connection carried is
  made due at once, rather than waiting for the next response to set it (the tasks that
  belong to connecting wait for the next connection).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from gridwire.dnp3.app.iin import IIN
from gridwire.errors import GridwireError
from gridwire.master.tasks.base import Task
from gridwire.master.tasks.catalogue import BY_NAME, INDICATED, ON_CONNECT, PRIORITY
from gridwire.master.tasks.settings import TaskSettings
from gridwire.process.flag import Flag

log = logging.getLogger(__name__)


class TaskRunner:
    """The due tasks of one outstation, run one at a time in priority order."""

    def __init__(
        self,
        perform: Callable[[str], Awaitable[object]],
        tasks: TaskSettings,
        ready: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self._perform = perform
        self._ready = ready
        self.tasks = tasks
        self._due: set[str] = set()
        self._last_iin = IIN(0)  # of the last response on this connection
        self._running: str | None = None
        self._worker: asyncio.Task[None] | None = None
        self._idle = Flag(True)

    @property
    def due(self) -> list[str]:
        """The tasks waiting to run, in the order they will."""
        due = self._due
        return [name for name in PRIORITY if name in due] if due else []

    @property
    def running(self) -> str | None:
        return self._running

    @property
    def busy(self) -> bool:
        return bool(self._due) or self._running is not None

    def _make_due(self, task: Task) -> None:
        if self.tasks.enabled(task.name):
            self._due.add(task.name)

    def connected(self) -> None:
        """A connection was made: the connect-time tasks are due."""
        for task in ON_CONNECT:
            self._make_due(task)
        self._kick()

    def disconnected(self) -> None:
        """The connection ended: nothing is due any more, and the running task stops."""
        self._due.clear()
        self._last_iin = IIN(0)
        if self._worker is not None and not self._worker.done():
            self._worker.cancel()
        self._worker = None
        self._running = None
        self._idle.set()

    def indicated(self, iin: IIN, *, task: str | None = None, objects: int = 0) -> None:
        """A response arrived with ``iin``; ``task`` made the request it answers (None for a
        request that was asked for or an unsolicited response), and it held ``objects``."""
        self._last_iin = iin
        if not iin:
            return
        for indicated in _indicated(iin):
            if not indicated.settles(task, objects):
                self._make_due(indicated)
        self._kick()

    def set(self, tasks: TaskSettings) -> None:
        """New task settings: due tasks now off are dropped; a task now on whose indication
        the last response carried is due at once."""
        was_on = {name for name in PRIORITY if self.tasks.enabled(name)}
        self.tasks = tasks
        self._due = {name for name in self._due if tasks.enabled(name)}
        for indicated in _indicated(self._last_iin):
            if indicated.name not in was_on:
                self._make_due(indicated)
        if self._due:
            self._kick()
        elif not self.busy:
            self._idle.set()

    async def idle(self) -> None:
        """Return once nothing is due or running."""
        while self.busy:
            self._idle.clear()
            await self._idle.wait()

    def close(self) -> None:
        self.disconnected()

    def _kick(self) -> None:
        if self._due and (self._worker is None or self._worker.done()):
            self._idle.clear()
            self._worker = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        try:
            while self._due:
                if self._ready is not None:
                    await self._ready()
                    if not self._due:
                        break
                name = self.due[0]
                self._due.discard(name)
                self._due -= BY_NAME[name].same_work
                self._running = name
                try:
                    await self._perform(name)
                except GridwireError as exc:
                    log.info("task %s did not run: %s", name, exc)
                finally:
                    self._running = None
        finally:
            if not self.busy:
                self._idle.set()


def _indicated(iin: IIN) -> tuple[Task, ...]:
    """The tasks the indications of ``iin`` call for (worked out once per value: every
    response asks)."""
    value = int(iin)
    tasks = _INDICATED_BY_VALUE.get(value)
    if tasks is None:
        tasks = _INDICATED_BY_VALUE[value] = tuple(
            task for task in INDICATED if iin & task.indication
        )
    return tasks


_INDICATED_BY_VALUE: dict[int, tuple[Task, ...]] = {}
