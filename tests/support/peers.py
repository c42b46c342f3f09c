"""Third-party DNP3 peers (yadnp3 / opendnp3 and dnp3py) run as subprocesses for tests.

Each peer is a program under tests/peers/ that prints JSON lines and reads JSON commands; see
the docstrings there for the events and commands. This module starts one on a free loopback
port with :func:`tests.support.processes.running` (so it is stopped by pid), waits for its
``ready`` line, and hands back a :class:`Peer`:

    with yadnp3_outstation(points=5) as outstation, yadnp3_master(outstation.port) as master:
        scan = master.scan()
        assert scan.value("analog", 3)["flags"] == 0x02
        master.operate("crob", 2, mode="sbo", op_type="PULSE_ON")
        outstation.expect("operate", index=2, mode="SelectBeforeOperate")

A background thread reads the peer's stdout into an event list; ``expect`` returns the oldest
event not yet returned by an earlier ``expect`` that matches, waiting for it if needed, and
fails at once (with the peer's stderr) if the peer exits. Everything here is synchronous; an
async test uses the ``a``-prefixed twins (``aexpect``, ``acall``...), which wait in a thread so
the test's event loop keeps running.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

from tests.support.certs import Identity, Pki
from tests.support.net import free_port
from tests.support.processes import running

PEERS_DIR = Path(__file__).resolve().parents[1] / "peers"
READY_TIMEOUT = 30.0
Event = dict[str, Any]
Match = str | Callable[[Event], bool]
P = TypeVar("P", bound="Peer")


class PeerError(AssertionError):
    """A peer did not start, exited, did not print what was expected, or refused a command."""


def _matches(event: Event, match: Match, fields: dict[str, Any]) -> bool:
    if isinstance(match, str):
        if event.get("event") != match:
            return False
    elif not match(event):
        return False
    return all(key in event and event[key] == value for key, value in fields.items())


class Peer:
    """One peer program: its events, commands to it, and its restart."""

    def __init__(self, program: str, args: Sequence[str], port: int) -> None:
        self.program = program
        self.port = port
        self.args = list(args)
        self.events: list[Event] = []
        self.generation = 0
        self._taken: set[int] = set()
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._stderr: deque[str] = deque(maxlen=200)
        self._stack: ExitStack | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._exited = False

    # -- process ---------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        if self._proc is None:
            raise PeerError(f"{self.program} is not running")
        return self._proc.pid

    @property
    def command_line(self) -> list[str]:
        return [sys.executable, "-u", str(PEERS_DIR / f"{self.program}.py"), *self.args]

    def start(self, ready_timeout: float = READY_TIMEOUT) -> None:
        stack = ExitStack()
        proc = stack.enter_context(
            running(
                self.command_line,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=str(PEERS_DIR),
            )
        )
        with self._cond:
            self.generation += 1
            self._exited = False
        self._stack, self._proc = stack, proc
        generation = self.generation
        threading.Thread(target=self._read_stdout, args=(proc, generation), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(proc,), daemon=True).start()
        try:
            self.expect("ready", timeout=ready_timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the program: end its stdin (it exits), then SIGTERM and at last SIGKILL."""
        stack, self._stack = self._stack, None
        if stack is None:
            return
        proc = self._proc
        if proc is not None and proc.stdin is not None and proc.poll() is None:
            with suppress(OSError):
                proc.stdin.close()
            with suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=3)
        stack.close()

    def kill(self) -> None:
        """SIGKILL the program's process group: the peer vanishes without closing anything."""
        if self._proc is not None and self._proc.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait(timeout=10)
        self.stop()

    def restart(self, hard: bool = True, ready_timeout: float = READY_TIMEOUT) -> None:
        """Stop the program (SIGKILL when ``hard``, else SIGTERM) and start it again on the
        same port with the same options. Events seen so far stay in :attr:`events`."""
        if hard:
            self.kill()
        else:
            self.stop()
        self.start(ready_timeout)

    async def arestart(self, hard: bool = True, ready_timeout: float = READY_TIMEOUT) -> None:
        await asyncio.to_thread(self.restart, hard, ready_timeout)

    def _read_stdout(self, proc: subprocess.Popen[str], generation: int) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                event = None
            if not isinstance(event, dict):
                event = {"event": "text", "text": line.rstrip("\n")}
            with self._cond:
                self.events.append(event)
                self._cond.notify_all()
        proc.wait()
        with self._cond:
            if generation == self.generation:
                self._exited = True
            self._cond.notify_all()

    def _read_stderr(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            self._stderr.append(line.rstrip("\n"))

    def _diagnosis(self) -> str:
        recent = "\n".join(orjson.dumps(e).decode()[:300] for e in self.events[-15:])
        stderr = "\n".join(list(self._stderr)[-20:])
        return f"last events:\n{recent}\nstderr:\n{stderr}"

    # -- events ----------------------------------------------------------------------------

    def expect(self, match: Match, timeout: float = 10.0, **fields: Any) -> Event:
        """The oldest event not returned before that matches ``match`` (an event name or a
        predicate) and has the given field values; waits up to ``timeout`` seconds for it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            scanned = 0
            while True:
                for position in range(scanned, len(self.events)):
                    if position not in self._taken and _matches(
                        self.events[position], match, fields
                    ):
                        self._taken.add(position)
                        return self.events[position]
                # Positions already scanned did not match; only new ones need a look, except
                # those skipped because taken (they stay taken).
                scanned = len(self.events)
                if self._exited:
                    raise PeerError(
                        f"{self.program} exited before printing {match!r} {fields}\n{self._diagnosis()}"
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PeerError(
                        f"{self.program} printed no {match!r} {fields} in {timeout} s\n{self._diagnosis()}"
                    )
                self._cond.wait(remaining)

    async def aexpect(self, match: Match, timeout: float = 10.0, **fields: Any) -> Event:  # noqa: ASYNC109 - waits in a thread
        return await asyncio.to_thread(self.expect, match, timeout, **fields)

    def drain(self) -> int:
        """Mark every event so far as returned, so that the next ``expect`` waits for a new
        one (before a restart, say: the old connection's ``channel`` events would match).
        Returns how many events there were."""
        with self._cond:
            self._taken.update(range(len(self.events)))
            return len(self.events)

    def received(self, match: Match, **fields: Any) -> list[Event]:
        """Every event so far matching ``match`` and ``fields`` (taken by ``expect`` or not)."""
        with self._cond:
            return [e for e in self.events if _matches(e, match, fields)]

    # -- commands --------------------------------------------------------------------------

    def send(self, command: dict[str, Any]) -> Any:
        """Write one command (an ``id`` is added unless given); returns its id."""
        if "id" not in command:
            command = {**command, "id": next(self._ids)}
        if self._proc is None or self._proc.stdin is None:
            raise PeerError(f"{self.program} is not running")
        self._proc.stdin.write(orjson.dumps(command).decode() + "\n")
        self._proc.stdin.flush()
        return command["id"]

    def call(self, command: dict[str, Any], timeout: float = 30.0) -> Event:
        """Send a command and wait for its reply; a reply with ``ok: false`` raises."""
        ident = self.send(command)
        answer = self.expect("reply", timeout=timeout, id=ident)
        if not answer.get("ok"):
            raise PeerError(f"{self.program} refused {command}: {answer.get('error')}")
        return answer

    async def acall(self, command: dict[str, Any], timeout: float = 30.0) -> Event:  # noqa: ASYNC109 - waits in a thread
        return await asyncio.to_thread(self.call, command, timeout)


class OutstationPeer(Peer):
    """An outstation peer: what it received, and the values it serves."""

    def update(self, kind: str, index: int, value: Any, **fields: Any) -> Event:
        """Set one point (``flags``, ``time_ms``, ``time_quality``, ``mode`` optional)."""
        return self.call({"cmd": "update", "type": kind, "index": index, "value": value, **fields})

    def update_many(self, points: list[dict[str, Any]]) -> Event:
        """Set several points in one database transaction (each as for :meth:`update`)."""
        return self.call({"cmd": "update", "points": points})

    def answer(self, status: str, count: int | None = None, on: str = "any") -> Event:
        """Answer ``status`` to the next ``count`` control callbacks (all, if None) at
        ``on`` (select, operate or any) instead of SUCCESS."""
        return self.call({"cmd": "answer", "status": status, "count": count, "on": on})


@dataclass
class Scan:
    """A master's read: its reply and the values it printed."""

    reply: Event
    values: list[Event] = field(default_factory=list)

    @property
    def result(self) -> str:
        return str(self.reply.get("result"))

    def value(self, kind: str, index: int) -> Event:
        """The last value of point ``kind`` ``index`` in this read."""
        found = [v for v in self.values if v["type"] == kind and v["index"] == index]
        if not found:
            raise PeerError(f"no {kind} {index} in the read; counts {self.reply.get('counts')}")
        return found[-1]


class MasterPeer(Peer):
    """A master peer: reads and controls it performs against an outstation."""

    def _read(self, command: dict[str, Any], timeout: float) -> Scan:
        answer = self.call(command, timeout)
        values = self.received("value", id=answer["id"])
        return Scan(answer, values)

    def scan(
        self, classes: Sequence[int] = (0, 1, 2, 3), values: bool = True, timeout: float = 60.0
    ) -> Scan:
        """Read the classes given (all four: an integrity poll)."""
        return self._read({"cmd": "scan", "classes": list(classes), "values": values}, timeout)

    def read(
        self, group: int, variation: int, start: int | None = None, stop: int | None = None
    ) -> Scan:
        """Read one group and variation, all objects or ``start``..``stop`` (yadnp3 only)."""
        command: dict[str, Any] = {"cmd": "read", "group": group, "variation": variation}
        if start is not None:
            command |= {"start": start, "stop": stop}
        return self._read(command, 60.0)

    def operate(self, kind: str, index: int, mode: str = "direct", **fields: Any) -> Event:
        """A control: ``kind`` crob (op_type, tcc, clear, count, on_ms, off_ms) or an analog
        output kind (int16, int32, float32, double64 with ``value``); ``mode`` direct, sbo or
        direct_nr. Returns the reply (``summary`` and per-point ``points`` statuses)."""
        return self.call({"cmd": "operate", "mode": mode, "kind": kind, "index": index, **fields})


def _tls_args(
    tls: Pki | None, identity: Identity | None, ca: Path | None, server: bool
) -> list[str]:
    if tls is None:
        return []
    chosen = identity or (tls.server if server else tls.client)
    return [
        "--tls-ca",
        str(ca or tls.ca),
        "--tls-certificate",
        str(chosen.certificate),
        "--tls-key",
        str(chosen.key),
    ]


@contextmanager
def _running_peer(peer: P, online: bool = False) -> Iterator[P]:
    peer.start()
    try:
        if online:
            # opendnp3 fails a task asked for before its channel opens (FAILURE_NO_COMMS), and
            # queues one asked for during its startup tasks behind them.
            peer.expect("task", type="STARTUP_INTEGRITY_POLL", timeout=READY_TIMEOUT)
        yield peer
    finally:
        peer.stop()


def yadnp3_outstation(
    points: int = 10,
    *,
    port: int | None = None,
    tls: Pki | None = None,
    tls_identity: Identity | None = None,
    tls_ca: Path | None = None,
    unsolicited: bool = False,
    event_buffer: int = 100,
    need_time: bool = False,
    echo_outputs: bool = False,
    local: int = 1024,
    remote: int = 1,
    extra: Sequence[str] = (),
) -> AbstractContextManager[OutstationPeer]:
    """yadnp3's outstation with ``points`` points of each of its nine types (a context
    manager yielding an :class:`OutstationPeer`). TLS uses the PKI's server identity and
    requires a client certificate signed by its CA."""
    port = free_port() if port is None else port
    args = ["--port", str(port), "--points", str(points), "--event-buffer", str(event_buffer)]
    args += [
        "--local",
        str(local),
        "--remote",
        str(remote),
        *_tls_args(tls, tls_identity, tls_ca, True),
    ]
    args += (
        ["--unsolicited"] * unsolicited
        + ["--need-time"] * need_time
        + ["--echo-outputs"] * echo_outputs
    )
    return _running_peer(OutstationPeer("yadnp3_outstation", [*args, *extra], port))


def yadnp3_der(
    map_path: Path, *, port: int | None = None
) -> AbstractContextManager[OutstationPeer]:
    """yadnp3's outstation serving the points of a gridwire JSON map, its command handler
    mirroring outputs to inputs (tests/peers/yadnp3_der.py; a context manager yielding an
    :class:`OutstationPeer`)."""
    port = free_port() if port is None else port
    args = ["--port", str(port), "--map", str(map_path)]
    return _running_peer(OutstationPeer("yadnp3_der", args, port))


def dnp3py_outstation(
    points: int = 10,
    *,
    port: int | None = None,
    need_time: bool = False,
    local: int = 1024,
    remote: int = 1,
    point_classes: Sequence[str] = (),
    extra: Sequence[str] = (),
) -> AbstractContextManager[OutstationPeer]:
    """dnp3py's outstation with ``points`` points of each of its six types (a context manager
    yielding an :class:`OutstationPeer`). ``point_classes`` items are ``TYPE:INDEX:CLASS``
    (class 0 = no events)."""
    port = free_port() if port is None else port
    args = [
        "--port",
        str(port),
        "--points",
        str(points),
        "--local",
        str(local),
        "--remote",
        str(remote),
    ]
    args += ["--need-time"] * need_time
    for item in point_classes:
        args += ["--point-class", item]
    return _running_peer(OutstationPeer("dnp3py_outstation", [*args, *extra], port))


def yadnp3_master(
    port: int,
    *,
    host: str = "127.0.0.1",
    tls: Pki | None = None,
    tls_identity: Identity | None = None,
    tls_ca: Path | None = None,
    time_sync: str = "none",
    quiet: bool = False,
    online: bool = True,
    local: int = 1,
    remote: int = 1024,
    extra: Sequence[str] = (),
) -> AbstractContextManager[MasterPeer]:
    """yadnp3's master connected to ``host:port`` (a context manager yielding a
    :class:`MasterPeer`). ``time_sync`` none, lan or nonlan: how it answers NEED_TIME.
    ``quiet`` prints fragment summaries in place of the values its own tasks receive.
    ``online`` waits (consuming that ``task`` event) until its startup integrity poll has
    ended, successfully or not; without it a command sent too early can fail NO_COMMS."""
    args = ["--port", str(port), "--host", host, "--local", str(local), "--remote", str(remote)]
    args += ["--time-sync", time_sync, *_tls_args(tls, tls_identity, tls_ca, False)]
    args += ["--quiet"] * quiet
    return _running_peer(MasterPeer("yadnp3_master", [*args, *extra], port), online)


def dnp3py_master(
    port: int, *, host: str = "127.0.0.1", local: int = 1, remote: int = 1024
) -> AbstractContextManager[MasterPeer]:
    """dnp3py's master connected to ``host:port`` (a context manager yielding a
    :class:`MasterPeer`; ``scan`` and ``operate`` only)."""
    args = ["--port", str(port), "--host", host, "--local", str(local), "--remote", str(remote)]
    return _running_peer(MasterPeer("dnp3py_master", args, port))


def yadnp3_bench(
    port: int, polls: int, *, host: str = "127.0.0.1", timeout: float = 120.0
) -> Event:
    """Run yadnp3's master in benchmark mode against ``host:port``: ``polls`` integrity polls
    one after another. Returns its ``bench`` event (median_ms, p90_ms, min_ms, max_ms,
    fragments)."""
    peer = MasterPeer(
        "yadnp3_master", ["--port", str(port), "--host", host, "--bench", str(polls)], port
    )
    with _running_peer(peer):
        return peer.expect(lambda e: e.get("event") in ("bench", "error"), timeout=timeout)
