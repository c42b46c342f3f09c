"""The JSON-line conversation every peer program holds with the test that started it.

A peer prints one JSON object per line on stdout, flushed at once, each with an ``event`` name,
and reads one JSON command per line on stdin. Every command may carry an ``id``; the program
answers it with exactly one ``{"event": "reply", "id": ..., "cmd": ..., "ok": ...}`` line (for
commands that start a task, when the task completes). A program exits on stdin EOF, on
``{"cmd": "quit"}`` and on SIGTERM.

Callbacks from a protocol stack run on the stack's threads: :func:`guarded` keeps an exception
inside one from reaching the stack (yadnp3 would answer NOT_SUPPORTED) and prints it instead.
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import orjson

Json = dict[str, Any]
Handler = Callable[[Json], Json | None]
R = TypeVar("R")

_lock = threading.Lock()


def emit(event: str, **fields: Any) -> None:
    """Print one event line (thread-safe, flushed)."""
    record: Json = {"event": event, **fields}
    line = orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS, default=str)
    with _lock:
        sys.stdout.buffer.write(line + b"\n")
        sys.stdout.buffer.flush()


def emit_error(where: str, error: BaseException) -> None:
    emit(
        "error",
        where=where,
        error=f"{type(error).__name__}: {error}",
        traceback=traceback.format_exc(limit=6),
    )


def guarded(fallback: R) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Wrap a stack callback: an exception is printed as an ``error`` event and ``fallback``
    is returned in place of raising into the stack."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> R:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                emit_error(fn.__qualname__, exc)
                return fallback

        return inner

    return wrap


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def reply(command: Json, ok: bool = True, **fields: Any) -> None:
    """Answer ``command`` (echoing its ``id`` and ``cmd``)."""
    emit("reply", id=command.get("id"), cmd=command.get("cmd"), ok=ok, **fields)


class CommandError(Exception):
    """A command a peer program cannot carry out; answered with ``ok: false``."""


def _exit_now(signum: int, frame: object) -> None:
    # The main thread may itself hold the lock (signal handlers run on it): do not wait long.
    if _lock.acquire(timeout=1.0):
        sys.stdout.flush()
    os._exit(0)


def hold_termination() -> None:
    """Block SIGTERM in this thread and so in every thread started after (call first thing).

    Python runs signal handlers on the main thread only; a SIGTERM the kernel hands to a stack's
    own thread would leave the main thread asleep in its read of stdin, and the program alive.
    :func:`serve_commands` unblocks SIGTERM on the main thread alone.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})


def listen_for_termination() -> None:
    """Exit at once on SIGTERM, handled on the main thread (see :func:`hold_termination`)."""
    signal.signal(signal.SIGTERM, _exit_now)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def serve_commands(handlers: Mapping[str, Handler], on_exit: Callable[[], None]) -> None:
    """Read commands from stdin until EOF or ``quit`` and dispatch each to its handler.

    A handler returns the fields of its reply, or None when it replies later itself (a task
    that completes in a callback). Runs on the main thread; returns never: the process ends
    with ``on_exit()`` then ``os._exit(0)``, so no C++ destructor of a stack runs at
    interpreter teardown.
    """
    listen_for_termination()
    try:
        for raw in sys.stdin:
            if not raw.strip():
                continue
            try:
                command = orjson.loads(raw)
                if not isinstance(command, dict):
                    raise CommandError("a command is a JSON object")
            except (orjson.JSONDecodeError, CommandError) as exc:
                emit("reply", id=None, cmd=None, ok=False, error=f"bad command line: {exc}")
                continue
            name = command.get("cmd")
            if name == "quit":
                reply(command)
                break
            handler = handlers.get(str(name))
            if handler is None:
                reply(command, ok=False, error=f"unknown command {name!r}")
                continue
            try:
                fields = handler(command)
            except Exception as exc:
                reply(command, ok=False, error=f"{type(exc).__name__}: {exc}")
                continue
            if fields is not None:
                reply(command, **fields)
    finally:
        try:
            on_exit()
        except Exception as exc:
            emit_error("exit", exc)
        with _lock:
            sys.stdout.flush()
        os._exit(0)


def require(command: Json, key: str) -> Any:
    try:
        return command[key]
    except KeyError:
        raise CommandError(f"{command.get('cmd')}: missing {key!r}") from None


def enum_member(enum_type: Any, name: object) -> Any:
    """The member of a pybind11 / Python enum named ``name`` (or with that int value)."""
    members: dict[str, Any] = dict(enum_type.__members__)
    if isinstance(name, str) and name in members:
        return members[name]
    if isinstance(name, int) and not isinstance(name, bool):
        for member in members.values():
            if int(member.value) == name:
                return member
    raise CommandError(f"{name!r} is not one of {sorted(members)}")


def _listening_ports() -> set[int]:
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for row in f:
                    fields = row.split()
                    if fields[3] == "0A":  # TCP_LISTEN
                        ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        except OSError:
            continue
    return ports


def wait_listening(port: int, timeout: float = 10.0) -> bool:
    """Wait until something listens on ``port``, without connecting to it (a connection would
    reach the outstation as a master). Reads the kernel's socket table (Linux)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if port in _listening_ports():
            return True
        time.sleep(0.02)
    return False


def add_endpoint_options(
    parser: argparse.ArgumentParser, local: int, remote: int, tls: bool
) -> None:
    """--port, --host, --local and --remote link addresses, and with ``tls`` the PEM files."""
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--local", type=int, default=local, help="this end's link address")
    parser.add_argument("--remote", type=int, default=remote, help="the peer's link address")
    if tls:
        parser.add_argument("--tls-ca", help="PEM of the CA the peer's certificate must chain to")
        parser.add_argument("--tls-certificate", help="PEM of this end's certificate")
        parser.add_argument("--tls-key", help="PEM of this end's private key")
