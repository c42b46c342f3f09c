"""An HTTP service on a listening socket: uvicorn (h11) with the connection limits of
:mod:`gridwire.net.connection_limits`, for the console and the 2030.5 management API alike.

uvicorn bounds what it can: an idle keep-alive connection (``timeout_keep_alive``) and the
size of a request's headers (h11's 16 KiB). It has no limit on how long headers may take
to arrive, none on how many connections it holds, and it closes a connection gracefully,
which never ends while the client reads nothing. Its protocol is therefore subclassed
(uvicorn's ``http`` setting takes a protocol class) to add, per server:

- a cap on connections: the one over ``max_connections`` is answered 503 with the
  service's refusal body and closed before anything of it is read;
- a look at every connection each ``tick``: one still waiting for whole request headers
  ``header_timeout`` after it opened (or after its last answer) is closed, however slowly
  it drips octets; one whose request body is not whole ``body_timeout`` after its headers
  (and a tick more, in which the application may answer it itself, as the console does) is
  answered 408, or closed when its answer has begun, however slowly it drips octets; one
  whose client has taken none of the octets waiting to be sent for ``send_timeout`` is
  aborted, whether it is answering or closing;
- a close that lingers (:mod:`gridwire.net.lingering`): FIN once everything is sent, then what
  the client still sends is read and dropped for a moment, so that unread pipelined
  requests never turn the close into a reset that destroys the answers before it;
- the ASGI scope extensions ``gridwire.abort``, a callable the application calls to cut its
  connection at once (the event stream, at its idleness limit), and ``gridwire.on_lost``,
  which takes a callable to call if the connection is lost before the answer is complete
  (and returns one that takes it back): the application cancels the work of a client that
  left without a task of its own watching for it.

uvicorn's ``limit_concurrency`` is left off: it counts connections only once a request has
arrived (so connections that send nothing are never refused) and answers in plain text.
Each condition is logged as one line, at most once a minute (:class:`Throttled`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, cast

import h11
import orjson
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from gridwire.net.connection_limits import (
    BACKLOG,
    Limits,
    Throttled,
    cut,
    guard_accept,
    throttle_logger,
)
from gridwire.net.lingering import LingeringTransport

log = logging.getLogger("gridwire.http")

ABORT = "gridwire.abort"
"""The ASGI scope extension holding a callable that cuts the connection at once."""
ON_LOST = "gridwire.on_lost"
"""The ASGI scope extension holding ``on_lost(callback) -> forget``: ``callback()`` is called
if the connection is lost while it is held (``forget()`` lets it go)."""

Refusal = Callable[[str], bytes]


def detail_body(message: str) -> bytes:
    """A refusal as FastAPI writes its errors: ``{"detail": message}``."""
    return orjson.dumps({"detail": message})


class _Watch:
    """The connections of one server, looked at every ``limits.tick`` seconds while any is
    open."""

    def __init__(self, limits: Limits, throttled: Throttled, refusal: Refusal) -> None:
        self.limits = limits
        self.throttled = throttled
        self.refusal = refusal
        self.connections: set[_GuardedH11] = set()
        self._timer: asyncio.TimerHandle | None = None

    def add(self, connection: _GuardedH11) -> None:
        self.connections.add(connection)
        if self._timer is None:
            self._timer = connection.loop.call_later(self.limits.tick, self._look)

    def discard(self, connection: _GuardedH11) -> None:
        self.connections.discard(connection)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _look(self) -> None:
        self._timer = None
        if not self.connections:
            return
        loop = next(iter(self.connections)).loop
        now = loop.time()
        for connection in list(self.connections):
            connection.look(now)
        if self.connections:
            self._timer = loop.call_later(self.limits.tick, self._look)


class _GuardedH11(H11Protocol):
    """uvicorn's h11 protocol under the limits (a subclass per server sets the class
    attributes)."""

    watch: ClassVar[_Watch]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.lost_callback: Callable[[], None] | None = None
        # Closed after a refusal with pipelined requests unread, a plain close would reset
        # the connection and destroy the answers sent before it (gridwire.net.lingering).
        super().connection_made(LingeringTransport(transport))
        self.waiting_since = self.loop.time()
        self.body_since = self.waiting_since
        self.stalled: tuple[float, int] | None = None
        watch = self.watch
        watch.add(self)
        if len(watch.connections) > watch.limits.max_connections:
            self._refuse_busy(watch)

    def _refuse_busy(self, watch: _Watch) -> None:
        cap = watch.limits.max_connections
        watch.throttled.log(
            f"busy {self.server}",
            logging.WARNING,
            "HTTP service on %s holds %d connections, the most it takes: refusing more",
            _address(self.server),
            cap,
        )
        self._write_refusal(
            "503 Service Unavailable",
            f"the service holds {cap} connections, the most it takes; try again later",
        )
        self.transport.close()

    def _write_refusal(self, status: str, message: str) -> None:
        """An answer written outside any request cycle: ``status`` (code and reason), the
        service's refusal body of ``message``, and the connection closing after it."""
        body = self.watch.refusal(message)
        head = (
            f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\ncache-control: no-store\r\n"
            "connection: close\r\n\r\n"
        ).encode()
        self.transport.write(head + body)

    def connection_lost(self, exc: Exception | None) -> None:
        self.watch.discard(self)
        callback, self.lost_callback = self.lost_callback, None
        super().connection_lost(exc)
        if callback is not None:
            callback()

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():
            return  # refused, or cut: nothing more of it is read
        super().data_received(data)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a request's headers arrived: its body is now due
            self.body_since = self.loop.time()
        if self.scope is not None:
            extensions = cast(dict[str, Any], self.scope).setdefault("extensions", {})
            extensions[ABORT] = self._abort_now
            extensions[ON_LOST] = self._on_lost

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.waiting_since = self.loop.time()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to octets h11 cannot read. They may break the body of a request
        the application has already started on (a chunk size that is not hexadecimal): its
        answer would then be a second one, failing with a traceback. It is told its client
        left instead; and when an answer has already begun (or ended), none can follow:
        the connection is closed."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # what it sends is dropped; receive() says disconnect
            cycle.message_event.set()
        try:
            super().send_400_response(msg)
        except h11.LocalProtocolError:
            self.transport.close()

    def _abort_now(self) -> None:
        cut(self.transport)

    def _on_lost(self, callback: Callable[[], None]) -> Callable[[], None]:
        self.lost_callback = callback

        def forget() -> None:
            if self.lost_callback is callback:
                self.lost_callback = None

        return forget

    def look(self, now: float) -> None:
        """Close a connection overdue with its headers or its body (``body_timeout`` after
        the headers, plus a tick in which the application may answer it first), abort one
        whose client takes nothing (called every tick)."""
        limits = self.watch.limits
        pending = self.transport.get_write_buffer_size()
        if pending == 0:
            self.stalled = None
        elif self.stalled is None or pending < self.stalled[1]:
            self.stalled = (now, pending)
        else:
            self.stalled = (self.stalled[0], pending)
            if now - self.stalled[0] >= limits.send_timeout:
                self._cut(
                    "send",
                    "cut a connection whose client took nothing for %s s",
                    limits.send_timeout,
                )
                cut(self.transport)
                return
        if (
            not self.transport.is_closing()
            and self.conn.their_state is h11.IDLE
            and now - self.waiting_since >= limits.header_timeout
        ):
            self._cut(
                "header",
                "closed a connection whose request headers did not arrive within %s s",
                limits.header_timeout,
            )
            self.transport.close()
            return
        if (
            not self.transport.is_closing()
            and self.conn.their_state is h11.SEND_BODY
            and now - self.body_since >= limits.body_timeout + limits.tick
        ):
            self._cut(
                "body",
                "closed a connection whose request body did not arrive within %s s",
                limits.body_timeout,
            )
            self._refuse_late_body()

    def _refuse_late_body(self) -> None:
        """408 for a request whose body is overdue, unless its answer has begun (the
        application, which may answer it first, is told its client left), then close."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        if cycle is not None and not cycle.response_started:
            within = self.watch.limits.body_timeout
            self._write_refusal(
                "408 Request Timeout", f"the request body did not arrive whole within {within} s"
            )
        self.transport.close()

    def _cut(self, condition: str, message: str, seconds: float) -> None:
        self.watch.throttled.log(
            f"{condition} {self.server}",
            logging.WARNING,
            "HTTP service on %s: " + message,
            _address(self.server),
            seconds,
        )


def _address(address: tuple[str, int | None] | None) -> str:
    if address is None:
        return "?"
    host, port = address
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class GuardedServer(uvicorn.Server):
    """uvicorn serving ``app`` under ``limits``.

    ``refusal`` writes the body of the 503 that refuses a connection over the cap (JSON).
    ``handle_signals`` False leaves SIGINT and SIGTERM to the caller (the operations
    service stops on its own event); ``options`` go to :class:`uvicorn.Config`."""

    def __init__(
        self,
        app: Any,
        limits: Limits | None = None,
        *,
        refusal: Refusal = detail_body,
        handle_signals: bool = True,
        **options: Any,
    ) -> None:
        self.limits = limits or Limits()
        self.handle_signals = handle_signals
        self.watch = _Watch(self.limits, Throttled(log), refusal)
        protocol = type("GuardedH11Protocol", (_GuardedH11,), {"watch": self.watch})
        options.setdefault("log_config", None)
        config = uvicorn.Config(
            app,
            http=protocol,
            # Typed int, used as call_later's delay: seconds with a fraction work.
            timeout_keep_alive=self.limits.keep_alive,  # type: ignore[arg-type]
            backlog=BACKLOG,
            **options,
        )
        super().__init__(config)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if self.handle_signals:
            with super().capture_signals():
                yield
        else:
            yield

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        guard_accept()
        throttle_logger("uvicorn.error")
        try:
            await super().serve(sockets=sockets)
        finally:
            self.watch.stop()
