"""The restore journal: what an evaluation changed on an outstation, as found, kept on disk
until it is put back (DESIGN D117).

While a run lasts, :meth:`Journal.before` is the master's command hook for the outstation
(:data:`gridwire.master.session.CommandHook`): before a control request leaves, each point it
is the first to change is read as found and recorded, and the file is written, flushed and
fsync'd (off the event loop) before the request is sent. What is recorded:

- a binary output (``BO2``): its output status (g10) as found; put back latched as found;
- an analog output (``AO6``): its output status (g40) as found, with the variation the check
  wrote it in; put back in that variation;
- an output of the curve block's window (``AO250 (curve 3)``): the outputs edit whichever
  curve the selector shows, so the entry is keyed by the curve shown (the selector's readback,
  read again after each selection) and its as-found value is the window's mirror input.
  Put back by selecting that curve, writing, and at the end the selector back as found;
- the selector itself (``AO244``), its readback as found;
- the schedule block's window alike (:mod:`gridwire.evaluate.windows`), its ready output
  (``BO42 (schedule 2)``) too: set off first and on last (a ready schedule refuses edits);
- the DER's run state (``run state``: started or stopped, from BI14/BI15) before the first
  start (BO1) or stop (BO2) command: put back by that command, its permission (BO3 to
  start, BO4 to stop) granted for it when withdrawn (and then put back as found itself).

:meth:`Journal.put_back` reads every entry again, writes back what differs, reads again, and
keeps in the journal only what still differs (the file is removed when nothing does): those
are "left changed", each ``{point, as_found, now}``. A journal file left by a run that never
ended (``kill -9``, a power cut) is found by :func:`journal_path` (the outstation's channel,
or host and port, and its link address, not its nickname: D201) and written back by
:func:`restore_journal`.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final, Literal

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind, Point, spelled
from gridwire.derops.profile import point_map_of
from gridwire.derops.read import read_points
from gridwire.dnp3.app.fragments import parse_request
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import Conflict, GridwireError
from gridwire.evaluate.journal_files import default_state_dir as default_state_dir
from gridwire.evaluate.journal_files import discard_journal as discard_journal
from gridwire.evaluate.journal_files import journal_path as journal_path
from gridwire.evaluate.journal_files import refuse_if_left as refuse_if_left
from gridwire.evaluate.journal_files import write_journal
from gridwire.evaluate.windows import Window, window_of, window_point, windows
from gridwire.master import Master
from gridwire.master.controls import Control

log = logging.getLogger("gridwire.evaluate")

Scalar = bool | int | float
EntryType = Literal["bo", "ao", "run_state"]
RUN_STATE: Final = "run state"
START, STOP, START_PERMISSION, STOP_PERMISSION = 1, 2, 3, 4
"""The start and stop commands and their permissions (BOs), as IEEE 1815.2 numbers them."""
STARTED, STOPPED = "BI14", "BI15"
_CROB, _ANALOG = 12, 41
JOURNALING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "gridwire_evaluate_journaling", default=False
)
"""Set in the context of a check (and of putting a journal back): only the controls made
there are journaled; another client's, waiting for the check to end, are its own."""
_POLL: Final = 0.25


JournalSink = Callable[[Path, "dict[str, Any] | None"], Awaitable[None]]
JOURNAL_SINKS: list[JournalSink] = []
"""Awaited after each journal file is written (None: removed), before the control it records
is sent: where a copy is kept beyond this machine (a cluster worker's journals bucket, D158)."""


@dataclass(slots=True)
class Entry:
    """One point as found (see the module's notes). ``selector`` is the item (curve or
    schedule, ``window``) the window showed when a window output was recorded (None for any
    other point)."""

    type: EntryType
    index: int
    as_found: Scalar | str
    variation: int | None = None
    selector: int | None = None
    window: str | None = None

    @property
    def name(self) -> str:
        if self.type == "run_state":
            return RUN_STATE
        shown = f" ({self.window_name} {self.selector})" if self.selector is not None else ""
        return f"{spelled(self.type, self.index)}{shown}"

    @property
    def window_name(self) -> str:
        return self.window or "curve"

    @property
    def key(self) -> tuple[str, int, int | None]:
        return self.type, self.index, self.selector


def left_item(entry: Entry, now: object) -> dict[str, object]:
    """A point left changed, as reported: ``{point, as_found, now}``."""
    return {"point": entry.name, "as_found": entry.as_found, "now": now}


def same(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    return a == b


class Journal:
    """The journal of one outstation (see the module's notes)."""

    def __init__(self, master: Master, outstation: str, point_map: PointMap, path: Path) -> None:
        self.master = master
        self.outstation = outstation
        self.point_map = point_map
        self.path = path
        self.entries: list[Entry] = []
        self._shown: dict[str, int | None] = {}
        self._lock = asyncio.Lock()

    # --- the file ----------------------------------------------------------------------------

    def load(self) -> None:
        """Read the entries of the file (RequestError when it cannot be read)."""
        try:
            data = json.loads(self.path.read_text("utf-8"))
            self.entries = [Entry(**item) for item in data["entries"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise Conflict(f"the journal {self.path} cannot be read: {exc}") from None

    async def save(self) -> None:
        """Write the entries (flushed, fsync'd), or remove the file when there are none."""
        settings = self.master.settings(self.outstation)
        data = {
            "outstation": self.outstation,
            "host": settings.host,
            "port": settings.port,
            "channel": settings.channel,
            "link": settings.outstation_address,
            "entries": [_saved(e) for e in self.entries],
        }
        await asyncio.to_thread(write_journal, self.path, data if self.entries else None)
        for sink in JOURNAL_SINKS:  # a copy kept elsewhere (a cluster), before any control
            await sink(self.path, data if self.entries else None)

    # --- the hook ----------------------------------------------------------------------------

    async def before(self, function: FunctionCode, body: bytes) -> None:
        """The command hook: record what this control request is the first to change."""
        if not JOURNALING.get():
            return
        try:
            objects = parse_request(bytes((0xC0, function)) + body).objects
        except GridwireError:
            return
        controls = [o for o in objects if o.group in (_CROB, _ANALOG) and o.index is not None]
        if not controls:
            return
        async with self._lock:
            await self._record(controls)

    async def _record(self, controls: Sequence[Any]) -> None:
        known = {e.key for e in self.entries}
        wins = windows(self.point_map)
        wanted: list[Entry] = []
        selected: set[str] = set()
        for obj in controls:
            index: int = obj.index
            kind = Kind.BO if obj.group == _CROB else Kind.AO
            if kind is Kind.BO and index in (START, STOP) and ("run_state", 0, None) not in known:
                known.add(("run_state", 0, None))
                state = await self.run_state()
                if state is not None:
                    wanted.append(Entry("run_state", 0, state))
            choosing = next((w for w in wins if kind is Kind.AO and index == w.selector), None)
            edited = next((w for w in wins if w.edited(kind, index)), None)
            key: tuple[str, int, int | None]
            if choosing is not None:
                key, entry = ("ao", index, None), Entry("ao", index, 0, 1)
                selected.add(choosing.name)
            elif edited is not None:
                if edited.name in selected:
                    log.warning("%s%d written with a new selection: not journaled", kind, index)
                    continue
                shown = await self.shown(edited)
                type: EntryType = "bo" if kind is Kind.BO else "ao"
                variation = None if kind is Kind.BO else obj.variation
                key = (type, index, shown)
                entry = Entry(type, index, kind is not Kind.BO and 0, variation, shown, edited.name)
            elif kind is Kind.BO:
                key, entry = ("bo", index, None), Entry("bo", index, False)
            else:
                key, entry = ("ao", index, None), Entry("ao", index, 0, obj.variation)
            if key not in known:
                known.add(key)
                wanted.append(entry)
        for name in selected:
            self._shown[name] = None
        found = await self._now([e for e in wanted if e.type != "run_state"])
        recorded = []
        for entry in wanted:
            value = entry.as_found if entry.type == "run_state" else found.get(entry.key)
            if value is None:
                log.warning(
                    "%s of %s could not be read as found: not journaled",
                    entry.name,
                    self.outstation,
                )
                continue
            entry.as_found = value
            recorded.append(entry)
        if recorded:
            self.entries.extend(recorded)
            await self.save()

    # --- reading as it is now ----------------------------------------------------------------

    def _point(self, entry: Entry) -> Point | None:
        """The point whose reading is the entry's value: the output's status, or for a
        window's output or selector the input that reads it back."""
        kind = Kind.BO if entry.type == "bo" else Kind.AO
        if (window := window_of(self.point_map, kind, entry.index)) is not None:
            return window_point(self.point_map, window, kind, entry.index)
        return self.point_map.get(kind, entry.index)

    async def _now(self, entries: Sequence[Entry]) -> dict[tuple[str, int, int | None], Scalar]:
        """The raw values of ``entries`` (of points, read in one go; missing: not reported)."""
        points = {e.key: self._point(e) for e in entries}
        chosen = list({str(p.address): p for p in points.values() if p is not None}.values())
        if not chosen:
            return {}
        found, _ = await read_points(self.master, self.outstation, chosen)
        raw = {r.address: r.raw for r in found if r.quality != "not_reported"}
        values: dict[tuple[str, int, int | None], Scalar] = {}
        for key, point in points.items():
            value = raw.get(str(point.address)) if point is not None else None
            if isinstance(value, bool | int | float):
                values[key] = value
        return values

    async def shown(self, window: Window) -> int | None:
        """The item ``window`` shows (the selector's readback), read once per selection."""
        if self._shown.get(window.name) is None:
            point = (
                None if window.readback is None else self.point_map.get(Kind.AI, window.readback)
            )
            if point is not None:
                found, _ = await read_points(self.master, self.outstation, [point])
                raw = found[0].raw if found else None
                if isinstance(raw, int) and not isinstance(raw, bool):
                    self._shown[window.name] = raw
        return self._shown.get(window.name)

    async def run_state(self, settled: bool = False) -> str | None:
        """``started`` or ``stopped``: where the DER is going when the start (BO1) or stop
        (BO2) latch is on (its state follows a moment later), else as BI14/BI15 say; with
        ``settled``, as BI14/BI15 say. None when they say neither."""
        names = (STARTED, STOPPED) if settled else (STARTED, STOPPED, f"BO{START}", f"BO{STOP}")
        points = [p for p in (self.point_map.at(name) for name in names) if p is not None]
        if len(points) < 2:
            return None
        found, _ = await read_points(self.master, self.outstation, points)
        by = {r.address: r.raw for r in found}
        start, stop = by.get(f"BO{START}") is True, by.get(f"BO{STOP}") is True
        if start != stop:
            return "started" if start else "stopped"
        if by.get(STARTED) is True and by.get(STOPPED) is not True:
            return "started"
        if by.get(STOPPED) is True and by.get(STARTED) is not True:
            return "stopped"
        return None

    # --- putting back ------------------------------------------------------------------------

    async def put_back(self, settle: float) -> list[dict[str, object]]:
        """Write back every entry that differs from its value as found (see the module's
        notes); what still differs after, as ``{point, as_found, now}``."""
        state = next((e for e in self.entries if e.type == "run_state"), None)
        if state is not None:  # first: it may grant a permission, journaled then put back
            await self._run_state_back(state)
        async with self._lock:
            entries = list(self.entries)
            if not entries:  # nothing to put back: a journal left empty is removed
                await self.save()
                return []
        left: dict[tuple[str, int, int | None], object] = {}
        wins = windows(self.point_map)
        choosing = {w.selector for w in wins}
        selectors = [e for e in entries if e.type == "ao" and e.selector is None]
        selectors = [e for e in selectors if e.index in choosing]
        plain = [e for e in entries if e.type != "run_state" and e.selector is None]
        plain = [e for e in plain if e not in selectors]
        await self._write_back(plain, left)
        for window in wins:
            await self._window_back(window, entries, selectors, left)
        if state is not None:
            now = await self._settled(state, settle)
            if now != state.as_found:
                left[state.key] = now
        async with self._lock:
            self.entries = [e for e in self.entries if e.key in left or e not in entries]
            await self.save()
        return [left_item(e, left[e.key]) for e in entries if e.key in left]

    async def _settled(self, entry: Entry, settle: float) -> str | None:
        """The run state once it is the one found, or after ``settle`` seconds."""
        clock = self.master.clock
        deadline = clock.monotonic() + settle
        while True:
            now = await self.run_state(settled=True)
            if now == entry.as_found or clock.monotonic() >= deadline:
                return now
            await asyncio.sleep(_POLL)

    async def _write_back(
        self, entries: list[Entry], left: dict[tuple[str, int, int | None], object]
    ) -> None:
        if not entries:
            return
        now = await self._now(entries)
        differing = [e for e in entries if not same(now.get(e.key), e.as_found)]
        if not differing:
            return
        controls = [_control(e) for e in differing]
        try:
            await self.master.operate_controls(self.outstation, controls)
        except GridwireError as exc:
            log.error("putting back %s failed: %s", ", ".join(e.name for e in differing), exc)
        after = await self._now(differing)
        for entry in differing:
            if not same(after.get(entry.key), entry.as_found):
                left[entry.key] = after.get(entry.key)

    async def _window_back(
        self,
        window: Window,
        entries: list[Entry],
        selectors: list[Entry],
        left: dict[tuple[str, int, int | None], object],
    ) -> None:
        """Each item of ``window`` put back (selected first), then the selector as found."""
        mine = [e for e in entries if e.selector is not None and e.window_name == window.name]
        for item in sorted({e.selector for e in mine if e.selector is not None}):
            await self._select(window, item)
            group = [e for e in mine if e.selector == item]
            off = [e for e in group if e.type == "bo" and e.as_found is False]
            on = [e for e in group if e.type == "bo" and e.as_found is not False]
            await self._write_back(off, left)
            await self._write_back([e for e in group if e.type != "bo"], left)
            await self._write_back(on, left)
        selector = next((e for e in selectors if e.index == window.selector), None)
        if selector is not None:
            await self._write_back([selector], left)
        elif mine:
            log.warning(
                "%ss were written with no selection journaled: the %s shown may differ",
                window.name,
                window.name,
            )

    async def _select(self, window: Window, item: int) -> None:
        if await self.shown(window) == item:
            return
        self._shown[window.name] = None
        await self.master.operate_controls(
            self.outstation, [Control("ao", window.selector, item, 1)]
        )

    async def _run_state_back(self, entry: Entry) -> None:
        if await self.run_state() in (entry.as_found, None):
            return
        start = entry.as_found == "started"
        permission = self.point_map.get(Kind.BO, START_PERMISSION if start else STOP_PERMISSION)
        if permission is not None:
            found, _ = await read_points(self.master, self.outstation, [permission])
            if found and found[0].raw is False:
                await self.master.operate_controls(
                    self.outstation, [Control("bo", permission.index, True)]
                )
        await self.master.operate_controls(
            self.outstation, [Control("bo", START if start else STOP, True)]
        )


def _saved(entry: Entry) -> dict[str, Any]:
    """An entry as the file holds it (``window`` only for a schedule's: older files lack it)."""
    return {k: v for k, v in asdict(entry).items() if k != "window" or v is not None}


def _control(entry: Entry) -> Control:
    value = entry.as_found
    if entry.type == "bo":
        return Control("bo", entry.index, bool(value))
    variation = entry.variation if entry.variation in (1, 2, 3, 4) else None
    if variation in (1, 2) and isinstance(value, float) and value.is_integer():
        value = int(value)
    assert isinstance(value, int | float)
    return Control("ao", entry.index, value, variation)


async def restore_journal(
    master: Master, outstation: str, state_dir: Path, settle: float = 5.0
) -> list[dict[str, object]]:
    """Write back the journal left for ``outstation``: each point as ``{point, as_found,
    now, restored}``; the journal is removed when everything is back, else keeps what is
    not. RequestError when there is none."""
    settings = master.settings(outstation)
    path = journal_path(state_dir, settings)
    if not path.exists():
        raise Conflict(f"no restore journal is left for {outstation} ({path})")
    journal = Journal(master, outstation, point_map_of(master, outstation), path)
    journal.load()
    entries = list(journal.entries)
    master.command_hook(outstation, journal.before)  # what putting back commands, journaled
    token = JOURNALING.set(True)
    try:
        async with master.hold(outstation):
            left = {item["point"]: item for item in await journal.put_back(settle)}
    finally:
        JOURNALING.reset(token)
        master.command_hook(outstation, None)
    entries += [e for e in journal.entries if e not in entries]
    return [
        {
            "point": e.name,
            "as_found": e.as_found,
            "now": left[e.name]["now"] if e.name in left else e.as_found,
            "restored": e.name not in left,
        }
        for e in entries
    ]


def pending(path: Path) -> list[dict[str, object]]:
    """What a journal file says is changed, for a report made without reading the
    outstation (``now`` null: not read)."""
    try:
        data = json.loads(path.read_text("utf-8"))
        return [left_item(Entry(**item), None) for item in data["entries"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []
