"""Closing a connection the way HTTP asks (RFC 9112, section 9.6): our side first, once all
that was written has been sent, then reading (and dropping) whatever the client still sends
for a moment before the socket is closed.

Closing a socket while octets the client sent lie unread in it makes the kernel answer with
a reset, and a reset makes the client's kernel throw away everything it had received and not
yet handed to the client: the answers before the close, all of them. The HTTP services close
a connection after a refusal, and a client may have pipelined more requests behind the one
refused; without lingering, the answer to an operation that ran before the refusal could be
lost, and a client that retries what went unanswered would command twice.

:class:`LingeringTransport` wraps a transport: ``close()`` sends FIN after the buffered octets
(``write_eof``), keeps reading, and closes ``linger`` seconds after everything was sent, or
at once when the client closes its side (the protocol's ``eof_received``). The protocol must
drop what arrives while the transport says it is closing. ``abort()`` is immediate as ever.
"""

from __future__ import annotations

import asyncio
from typing import Any

LINGER = 1.0
"""Seconds a closed connection keeps reading once everything written has been sent."""
_LOOK = 0.1  # seconds between looks at whether everything written has been sent


class LingeringTransport(asyncio.Transport):
    """``transport``, its ``close()`` lingering (see the module's description)."""

    def __init__(self, transport: asyncio.Transport, linger: float = LINGER) -> None:
        super().__init__()
        self._transport = transport
        self._linger = linger
        self._closing = False
        self._timer: asyncio.TimerHandle | None = None
        self._sent_at: float | None = None

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        transport = self._transport
        if transport.is_closing() or not transport.can_write_eof():
            transport.close()
            return
        try:
            transport.write_eof()  # FIN, once what is buffered has been sent
        except OSError:  # the client is gone already (reset): nothing to linger for
            transport.abort()
            return
        transport.resume_reading()  # what still comes is read (and dropped by the protocol)
        self._look()

    def _look(self) -> None:
        transport = self._transport
        if transport.is_closing():
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if transport.get_write_buffer_size() > 0:
            self._sent_at = None  # the send timeout of the server cuts a client that reads none
        elif self._sent_at is None:
            self._sent_at = now
        elif now - self._sent_at >= self._linger:
            transport.close()
            return
        self._timer = loop.call_later(_LOOK, self._look)

    def is_closing(self) -> bool:
        return self._closing or self._transport.is_closing()

    def abort(self) -> None:
        self._closing = True
        if self._timer is not None:
            self._timer.cancel()
        self._transport.abort()

    # -- everything else is the transport's --------------------------------------------------

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._transport.write(data)

    def write_eof(self) -> None:
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def pause_reading(self) -> None:
        if not self._closing:  # once closing, reading goes on until the socket closes
            self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()
