"""The gateway's local store (SQLite): what it must not lose, written before it acts.

- ``events``: every event record (the control as received, its drawn randomization, its
  state, the Responses it has owed), written after each scheduling pass and before anything
  is applied or posted;
- ``responses``: each Response owed, with when it was posted and the head-end's answer;
  one not yet posted is posted after a restart, one answered never again. One whose POST was
  under way when the process was killed (``attempted_at`` set, no answer) is not posted
  again: the head-end may have it, and a Response is never sent twice (its answer is null);
- ``state``: what the gateway holds on the DER and what it found there before (so what an
  event that ended while the gateway was down changed is put back);
- ``changes``: every step sent to the DER, for the management API.

Old rows are dropped (:meth:`Store.drop_events`, :meth:`Store.drop_changes`; DESIGN D203),
so a gateway running for months keeps a bounded store (SQLite reuses the freed pages).

Each write is its own transaction; the file is opened with WAL so a kill -9 leaves it whole.

One store serves one gateway process (DESIGN D204): opening takes an exclusive lock on
``<store>.lock`` (released by the system when the process ends, even by kill -9), and
:meth:`Store.claim` ties the store to the EndDevice's LFDI, so a second process or another
device's configuration pointed at the same file is refused with the reason.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gridwire.errors import ConfigError
from gridwire.gateway.resources import DerControl, FixedVar, ModeValue, PowerFactor, mode_json
from gridwire.gateway.schedule import EventRecord, ResponseDue

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (mrid TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS responses (
    id INTEGER PRIMARY KEY AUTOINCREMENT, mrid TEXT NOT NULL, status INTEGER NOT NULL,
    reply_to TEXT NOT NULL, at REAL NOT NULL, attempted_at REAL, posted_at REAL,
    answer INTEGER,
    UNIQUE (mrid, status));
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS changes (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL,
    change TEXT NOT NULL);
"""


def _mode_of(value: Any) -> ModeValue:
    if isinstance(value, dict) and "power_factor" in value:
        return PowerFactor(float(value["power_factor"]), bool(value["excitation"]))
    if isinstance(value, dict) and "ref_type" in value:
        return FixedVar(int(value["ref_type"]), float(value["percent"]))
    if isinstance(value, (bool, int, float, str)):
        return value
    raise ValueError(f"not a mode value: {value!r}")


def record_json(record: EventRecord) -> str:
    control = asdict(record.control)
    control["modes"] = {k: mode_json(v) for k, v in record.control.modes.items()}
    control["problems"] = list(record.control.problems)
    data = asdict(record)
    data["control"] = control
    return json.dumps(data)


def record_of(text: str) -> EventRecord:
    data = json.loads(text)
    control = data.pop("control")
    control["modes"] = {k: _mode_of(v) for k, v in control["modes"].items()}
    control["problems"] = tuple(control["problems"])
    return EventRecord(control=DerControl(**control), **data)


def default_store(folder: Path, lfdi: str) -> Path:
    """Where a gateway keeps its store when the configuration names none: beside its
    configuration, named by the EndDevice's LFDI (so each device of a site has its own)."""
    return folder / f"gridwire-gateway-{lfdi.upper()}.sqlite"


class Store:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = _lock(self.path)
        try:
            self.db = sqlite3.connect(str(path), isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            os.close(self._lock)
            raise ConfigError(f"gateway.store {self.path}: {exc}") from None

    def close(self) -> None:
        self.db.close()
        os.close(self._lock)  # the lock goes with the descriptor

    def claim(self, lfdi: str) -> None:
        """Tie the store to this EndDevice; refuse one that holds another's events."""
        held = self.get("lfdi")
        if held is not None and held != lfdi.upper():
            raise ConfigError(
                f"gateway.store {self.path} holds the events of EndDevice LFDI {held}, not "
                f"{lfdi.upper()}: give each device its own store"
            )
        if held is None:
            self.put("lfdi", lfdi.upper())

    # -- events and responses ---------------------------------------------------------------

    def save_events(self, records: Mapping[str, EventRecord], due: list[ResponseDue]) -> None:
        """The records and the Responses they now owe, in one transaction."""
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO events (mrid, record) VALUES (?, ?)",
                [(m, record_json(r)) for m, r in records.items()],
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO responses (mrid, status, reply_to, at) VALUES (?, ?, ?, ?)",
                [(r.mrid, r.status, r.reply_to, r.at) for r in due],
            )

    def events(self) -> list[EventRecord]:
        rows = self.db.execute("SELECT record FROM events ORDER BY rowid").fetchall()
        return [record_of(text) for (text,) in rows]

    def drop_events(self, mrids: list[str]) -> None:
        """Forget these events and their Responses, in one transaction."""
        if not mrids:
            return
        with self._transaction():
            self.db.executemany("DELETE FROM events WHERE mrid = ?", [(m,) for m in mrids])
            self.db.executemany("DELETE FROM responses WHERE mrid = ?", [(m,) for m in mrids])

    def drop_changes(self, before: float) -> int:
        """Forget the steps sent before ``before`` (wall clock); how many."""
        return self.db.execute("DELETE FROM changes WHERE at < ?", (before,)).rowcount

    def unposted(self) -> list[tuple[int, ResponseDue]]:
        rows = self.db.execute(
            "SELECT id, mrid, reply_to, status, at FROM responses WHERE posted_at IS NULL "
            "ORDER BY id"
        ).fetchall()
        return [(row[0], ResponseDue(row[1], row[2], row[3], row[4])) for row in rows]

    def attempting(self, response_id: int, at: float) -> None:
        self.db.execute("UPDATE responses SET attempted_at = ? WHERE id = ?", (at, response_id))

    def settle_attempts(self) -> int:
        """At start: a POST under way when the last process stopped counts as posted."""
        cursor = self.db.execute(
            "UPDATE responses SET posted_at = attempted_at "
            "WHERE posted_at IS NULL AND attempted_at IS NOT NULL"
        )
        return cursor.rowcount

    def posted(self, response_id: int, at: float, answer: int) -> None:
        self.db.execute(
            "UPDATE responses SET posted_at = ?, answer = ? WHERE id = ?",
            (at, answer, response_id),
        )

    def tried(self, response_id: int, answer: int | None) -> None:
        """A POST that failed (``answer`` a 5xx, or None): posted again at the next pass."""
        self.db.execute(
            "UPDATE responses SET answer = ?, attempted_at = NULL WHERE id = ?",
            (answer, response_id),
        )

    def responses(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT mrid, status, reply_to, at, posted_at, answer FROM responses ORDER BY id"
        ).fetchall()
        keys = ("mrid", "status", "reply_to", "at", "posted_at", "answer")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    # -- state and changes ------------------------------------------------------------------

    def put(self, key: str, value: Any) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)", (key, json.dumps(value))
        )

    def get(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def add_change(self, at: float, change: dict[str, Any]) -> None:
        self.db.execute("INSERT INTO changes (at, change) VALUES (?, ?)", (at, json.dumps(change)))

    def changes(self, limit: int = 200) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT at, change FROM changes ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        return [{"at": at, **json.loads(text)} for at, text in reversed(rows)]

    def _transaction(self) -> _Tx:
        return _Tx(self.db)


def _lock(path: Path) -> int:
    """An exclusive lock on ``<path>.lock`` for this process, or a clear refusal."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise ConfigError(f"gateway.store {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise ConfigError(
            f"gateway.store {path} is in use by another gateway (pid {holder}): each gateway "
            "process needs its own store"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
