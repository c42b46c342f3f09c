"""What every listening service of gridwire allows its connections: how long a request may
take to arrive, how long an answer may wait to be taken, how many connections it holds, and
one log line per condition rather than one per event.

The console's HTTP service, the line service and the 2030.5 management API share these
rules (:class:`Limits`), so that a client that sends half a request, stops reading, or
opens connections by the thousand costs a bounded number of descriptors for a bounded time
and a few log lines.

:func:`guard_accept` quiets asyncio's own flood: when ``accept()`` fails for want of
descriptors (EMFILE), asyncio's accept loop logs the failure, with its traceback, once per
connection waiting in the listen queue on every turn of the loop (megabytes a second). It
becomes one line, at most once a minute, counting the failures in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("gridwire.connections")

LOG_EVERY = 60.0
"""Seconds between two log lines about the same condition."""
BACKLOG = 128
"""Listen queue of the services; also how many accept() calls asyncio makes on one turn of
the loop, each failing and logging when descriptors run out."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of one listening service (seconds, and a number of connections).

    - ``header_timeout``: an HTTP request's headers must have arrived whole this long after
      the connection opened or the previous answer ended, else the connection is closed.
    - ``body_timeout``: an HTTP request's body must have arrived whole this long after its
      headers, else it is answered 408 and the connection closed.
    - ``keep_alive``: an HTTP connection with nothing under way is closed after this long
      without a new request (uvicorn's ``timeout_keep_alive``).
    - ``send_timeout``: a connection whose client takes none of what is waiting to be sent for
      this long is cut (aborted: the octets it did not take are dropped).
    - ``line_idle``: a line service connection with no message under way, no subscription,
      and no whole line received for this long is closed.
    - ``max_connections``: connections held at once; one more is answered with a refusal and
      closed at once.
    """

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive: float = 5.0
    send_timeout: float = 60.0
    line_idle: float = 300.0
    max_connections: int = 256

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "keep_alive", "send_timeout", "line_idle"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be more than 0 seconds")
        if self.max_connections < 1:
            raise ValueError("max_connections must be at least 1")

    @property
    def tick(self) -> float:
        """How often connections are looked at: often enough that no limit is overrun by
        more than a quarter of itself (and at most once a second)."""
        return min(1.0, self.header_timeout / 4, self.send_timeout / 4, self.line_idle / 4)


def cut(transport: asyncio.WriteTransport) -> None:
    """End a connection at once: the octets its client did not take are dropped and the
    client is sent a reset. (A transport's ``abort`` alone closes the socket, and the
    kernel then keeps the connection open for as long as it still holds octets to send, to
    a client that reads none.)"""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


class Throttled:
    """Log lines by condition, each condition at most once every ``every`` seconds; a line
    says how many times the condition recurred since the last one."""

    KEPT = 1024  # conditions remembered; the oldest are forgotten past this

    def __init__(
        self,
        logger: logging.Logger = log,
        every: float = LOG_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.every = every
        self.clock = clock
        self._last: dict[str, tuple[float, int]] = {}

    def due(self, condition: str) -> int | None:
        """None when ``condition`` was let through less than ``every`` seconds ago (it is
        counted), else how many times it was held back since it last was."""
        now = self.clock()
        last = self._last.get(condition)
        if last is not None and now - last[0] < self.every:
            self._last[condition] = (last[0], last[1] + 1)
            return None
        if last is None and len(self._last) >= self.KEPT:
            self._last = {k: v for k, v in self._last.items() if now - v[0] < self.every}
            if len(self._last) >= self.KEPT:
                self._last.pop(next(iter(self._last)))
        self._last[condition] = (now, 0)
        return last[1] if last is not None else 0

    def log(self, condition: str, level: int, message: str, *args: object) -> bool:
        """Log ``message`` for ``condition`` unless it was logged less than ``every`` seconds
        ago; whether a line was written."""
        skipped = self.due(condition)
        if skipped is None:
            return False
        self.logger.log(level, message + _since(skipped), *args)
        return True


def _since(skipped: int) -> str:
    return f" ({skipped} more since the last such line)" if skipped else ""


class ThrottleFilter(logging.Filter):
    """A logging filter that lets each distinct message of WARNING or above through at most
    once every ``every`` seconds (for uvicorn's own warnings: one per bad request else)."""

    def __init__(self, every: float = LOG_EVERY, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.throttled = Throttled(every=every, clock=clock)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        skipped = self.throttled.due(record.getMessage())
        if skipped is None:
            return False
        if skipped:
            record.msg, record.args = record.getMessage() + _since(skipped), None
        return True


def throttle_logger(name: str) -> None:
    """Put a :class:`ThrottleFilter` on the logger ``name`` (once)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, ThrottleFilter) for f in logger.filters):
        logger.addFilter(ThrottleFilter())


_ACCEPT_FAILED = "socket.accept() out of system resource"


class _AcceptGuard:
    """The loop's exception handler with asyncio's accept failure made one throttled line."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous
        self.throttled = Throttled()

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == _ACCEPT_FAILED:
            exc = context.get("exception")
            where = context.get("socket")
            address = where.getsockname() if where is not None else "?"
            self.throttled.log(
                f"accept {address}",
                logging.ERROR,
                "cannot accept connections on %s: %s; asyncio tries again every second",
                address,
                exc,
            )
            return
        if self.previous is not None:
            self.previous(loop, context)
        else:
            loop.default_exception_handler(context)


def guard_accept(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Make asyncio's "out of system resource" accept failures one throttled line on
    ``loop`` (the running loop by default); other exceptions go where they went."""
    loop = loop or asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    if isinstance(previous, _AcceptGuard):
        return
    loop.set_exception_handler(_AcceptGuard(previous))
