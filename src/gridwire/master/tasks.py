"""What the master does for an outstation by itself: the tasks made due by connecting and by
the indications the outstation sets, and the scans on a schedule.

:class:`TaskRunner` keeps the set of tasks due and runs them one at a time, highest priority
first, through a ``perform(name)`` coroutine the session gives it (which makes the requests,
each tagged with the task's name). It decides only *when*; the session decides *how*. A task
stays due (and can still be turned off) until the session is free to send it: the runner
waits on ``ready()`` before it picks the next one.

- ``startup`` and ``enable_unsolicited`` become due when a connection is made;
- ``clear_restart`` on DEVICE_RESTART, ``write_time`` on NEED_TIME, ``integrity_on_overflow``
  on EVENT_BUFFER_OVERFLOW, ``events_when_indicated`` on CLASS_1/2/3_EVENTS, from any
  response, solicited or not;
- a task is not made due again by the answer to its own request (an outstation that keeps an
  indication set after the task ran would otherwise be asked forever), except that an event
  read that returned events may be followed by another while the outstation says it has more;
- a task turned off while due is dropped, not done; losing the connection drops every task;
- a task turned on (``set``) whose indication the last response of this connection carried is
  made due at once, rather than waiting for the next response to set it (``startup`` and
  ``enable_unsolicited``, which belong to connecting, wait for the next connection).

:class:`Schedules` runs a scan of a kind every so many seconds (``repeat`` and the periodic
scans of the settings), at least :data:`MIN_SCAN_INTERVAL` apart; setting a kind again cancels
its loop, abandoning the scan under way. While the outstation is not connected a schedule
waits for the connection, doing nothing; the first scan goes as soon as it is made.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable

from gridwire.dnp3.app.iin import CLASS_EVENTS, IIN
from gridwire.errors import GridwireError, RequestError
from gridwire.master.settings import MIN_SCAN_INTERVAL, TaskSettings

log = logging.getLogger(__name__)

# Order in which due tasks run: the restart indication first (it says the outstation lost
# its state), then the integrity poll that reads that state, the clock, unsolicited
# reporting, and event reads last.
PRIORITY = (
    "clear_restart",
    "startup",
    "integrity_on_overflow",
    "write_time",
    "enable_unsolicited",
    "events_when_indicated",
)
# Tasks that make an integrity poll: doing one satisfies the other.
INTEGRITY_TASKS = frozenset({"startup", "integrity_on_overflow"})
CLASS_BITS = IIN.CLASS_1_EVENTS | IIN.CLASS_2_EVENTS | IIN.CLASS_3_EVENTS


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
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def due(self) -> list[str]:
        """The tasks waiting to run, in the order they will."""
        return [name for name in PRIORITY if name in self._due]

    @property
    def running(self) -> str | None:
        return self._running

    @property
    def busy(self) -> bool:
        return bool(self._due) or self._running is not None

    def _enabled(self, name: str) -> bool:
        if name == "enable_unsolicited":
            return bool(self.tasks.enable_unsolicited)
        return bool(getattr(self.tasks, name))

    def _make_due(self, name: str) -> None:
        if self._enabled(name):
            self._due.add(name)

    def connected(self) -> None:
        """A connection was made: the connect-time tasks are due."""
        self._make_due("startup")
        self._make_due("enable_unsolicited")
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
        for name in _indicated_tasks(iin):
            if not _own_answer(name, task, objects):
                self._make_due(name)
        self._kick()

    def set(self, tasks: TaskSettings) -> None:
        """New task settings: due tasks now off are dropped; a task now on whose indication
        the last response carried is due at once."""
        was_on = {name for name in PRIORITY if self._enabled(name)}
        self.tasks = tasks
        self._due = {name for name in self._due if self._enabled(name)}
        for name in _indicated_tasks(self._last_iin):
            if name not in was_on:
                self._make_due(name)
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
                if name in INTEGRITY_TASKS:
                    self._due -= INTEGRITY_TASKS
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


def _indicated_tasks(iin: IIN) -> list[str]:
    """The tasks the indications of ``iin`` call for."""
    names = []
    if iin & IIN.DEVICE_RESTART:
        names.append("clear_restart")
    if iin & IIN.NEED_TIME:
        names.append("write_time")
    if iin & IIN.EVENT_BUFFER_OVERFLOW:
        names.append("integrity_on_overflow")
    if iin & CLASS_BITS:
        names.append("events_when_indicated")
    return names


def _own_answer(name: str, task: str | None, objects: int) -> bool:
    """Whether a response that calls for task ``name`` answers that task's own request (made
    by ``task``, holding ``objects``), which does not make it due again; an event read that
    returned events may be followed by another."""
    if name == "integrity_on_overflow":
        return task in INTEGRITY_TASKS
    if name == "events_when_indicated":
        return task == name and not objects
    return task == name


def classes_indicated(iin: IIN) -> list[int]:
    """The event classes whose events ``iin`` says wait to be read."""
    return [number for number, bit in CLASS_EVENTS.items() if iin & bit]


class Schedules:
    """Scans on a schedule: kind -> interval in seconds, each run by its own loop.

    ``ready()`` says whether a scan can be made now: None when it can, else an awaitable
    that ends once it can (the connection is made again); the loop waits on it rather than
    trying a scan that would fail at once."""

    def __init__(
        self,
        scan: Callable[[str], Awaitable[object]],
        now: Callable[[], float],
        ready: Callable[[], Awaitable[object] | None] = lambda: None,
    ):
        self._scan = scan
        self._now = now
        self._ready = ready
        self._intervals: dict[str, float] = {}
        self._loops: dict[str, asyncio.Task[None]] = {}

    def as_dict(self) -> dict[str, float]:
        return dict(self._intervals)

    def set(self, kind: str, interval: float | None) -> None:
        """Scan ``kind`` every ``interval`` seconds from now (the first at once); None ends
        the schedule. Either way a scan of the old schedule still under way is abandoned.
        RequestError, and nothing changes, for an interval under :data:`MIN_SCAN_INTERVAL`."""
        if interval is not None and not (math.isfinite(interval) and interval >= MIN_SCAN_INTERVAL):
            raise RequestError(
                f"interval {interval:g} s is refused: the minimum between scans is "
                f"{MIN_SCAN_INTERVAL:g} s (and an interval is a finite number)"
            )
        loop_task = self._loops.pop(kind, None)
        if loop_task is not None:
            loop_task.cancel()
        self._intervals.pop(kind, None)
        if interval is None:
            return
        self._intervals[kind] = interval
        self._loops[kind] = asyncio.get_running_loop().create_task(self._run(kind, interval))

    def close(self) -> None:
        for kind in list(self._intervals):
            self.set(kind, None)

    async def _run(self, kind: str, interval: float) -> None:
        next_at = self._now()
        while True:
            waiting = self._ready()
            if waiting is not None:
                await waiting
                next_at = self._now()
            try:
                await self._scan(kind)
            except GridwireError as exc:
                log.debug("scheduled %s scan not made: %s", kind, exc)
            next_at += interval
            delay = next_at - self._now()
            if delay < 0:
                next_at = self._now()
                delay = 0.0
            await asyncio.sleep(delay)


async def cancel_quietly(task: asyncio.Task[object] | None) -> None:
    """Cancel ``task`` and wait for it to end, whatever it ends with."""
    if task is None or task.done():
        return
    task.cancel()
    await asyncio.wait([task])
