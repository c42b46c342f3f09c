"""The I/O edge: one TCP or TLS connection to an outstation.

Octets received are handed, in order and as they arrive, to the session's ``on_data``
callback (the connection's single receive path: asyncio calls the protocol's
``buffer_updated`` on the loop, with no task switch per chunk); the end of the connection is
reported once to ``on_lost``. Writes go straight to the transport.

The protocol is an :class:`asyncio.BufferedProtocol`: the transport reads into a buffer,
and each chunk is copied out as ``bytes`` of its own size. A plain protocol makes asyncio
allocate 256 KiB for every read, which glibc serves with mmap, mremap and munmap (three
system calls and a page fault per chunk: one chunk per fragment of a multi-fragment
response). The buffer is one per thread, shared by every connection its loop reads (DESIGN
D146): asyncio asks for it, reads into it and hands it back in one synchronous step, and the
chunk is copied out before the step ends, so no two connections ever hold it at once; an
outstation at rest keeps no receive buffer of its own.

Octets that arrive before the session has taken the connection (an outstation may send its
first unsolicited response the moment it accepts) are held until :meth:`Connection.start`.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Callable

from gridwire.capture import TcpFlow
from gridwire.errors import BadParameter, ConnectionFailed
from gridwire.master.limits import RECEIVE_BUFFER
from gridwire.master.settings import TlsSettings
from gridwire.net.sockets import connect_reason
from gridwire.net.tls_files import TlsFileError, client_context

Address = tuple[str, int]


def tls_context(tls: TlsSettings) -> ssl.SSLContext:
    """A client context: TLS 1.2 or later, the outstation's certificate checked against
    ``ca``, our own certificate and key offered. Built from the files at every connect, so a
    certificate renewed on disk is used by the next connection; files that became unusable
    since ``add`` mean this connection cannot be made (ConnectionFailed)."""
    try:
        return client_context(tls)
    except TlsFileError as exc:
        raise ConnectionFailed(f"TLS settings cannot be used: {exc}") from None


def check_tls(tls: TlsSettings) -> None:
    """Refuse TLS files that cannot be used as they are given: a parameter of ``add`` that is
    wrong (RequestError with the one-line error of every side's TLS files), not a connection
    that failed."""
    try:
        client_context(tls)
    except TlsFileError as exc:
        raise BadParameter(str(exc)) from None


class _SharedBuffer(threading.local):
    """The receive buffer of this thread's connections (see the module's notes)."""

    def __init__(self) -> None:
        self.view = memoryview(bytearray(RECEIVE_BUFFER))


_SHARED = _SharedBuffer()


class _Protocol(asyncio.BufferedProtocol):
    def __init__(
        self, on_data: Callable[[bytes], None], on_lost: Callable[[str | None], None]
    ) -> None:
        self._on_data = on_data
        self._on_lost = on_lost
        self._held: list[bytes] | None = []
        self.done = asyncio.get_running_loop().create_future()

    def get_buffer(self, sizehint: int) -> memoryview:
        return _SHARED.view

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(_SHARED.view[:nbytes].tobytes())

    def start(self) -> None:
        held, self._held = self._held, None
        if held:
            self._on_data(b"".join(held))

    def data_received(self, data: bytes) -> None:
        if self._held is not None:
            self._held.append(data)
        else:
            self._on_data(data)

    def eof_received(self) -> bool:
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)
        self._on_lost(str(exc) if exc is not None else None)


class Connection:
    """An open connection; ``local`` and ``remote`` are the socket's two ends."""

    def __init__(
        self, transport: asyncio.Transport, protocol: _Protocol, local: Address, remote: Address
    ) -> None:
        self._transport = transport
        self._protocol = protocol
        self.local = local
        self.remote = remote

    def start(self) -> None:
        """Deliver what arrived so far, and from now on each chunk as it arrives."""
        self._protocol.start()

    @property
    def is_open(self) -> bool:
        return not self._transport.is_closing()

    def capture_flow(self) -> TcpFlow:
        """The flow its frames are captured in (one per connection)."""
        return TcpFlow(self.local, self.remote)

    def write(self, data: bytes) -> None:
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self._transport.close()

    async def wait_closed(self, within: float = 5.0) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(self._protocol.done), within)
        except TimeoutError:
            self._transport.abort()


async def open_connection(
    host: str,
    port: int,
    *,
    tls: TlsSettings | None,
    on_data: Callable[[bytes], None],
    on_lost: Callable[[str | None], None],
    within: float = 5.0,
) -> Connection:
    """Connect to ``host:port`` (over TLS when ``tls`` is given); ConnectionFailed with the
    reason when it cannot be done within ``within`` seconds."""
    loop = asyncio.get_running_loop()
    ctx = tls_context(tls) if tls is not None else None
    server_hostname = (tls.server_name or host) if tls is not None else None
    where = f"{host}:{port}" + (" (TLS)" if tls is not None else "")
    try:
        transport, protocol = await asyncio.wait_for(
            loop.create_connection(
                lambda: _Protocol(on_data, on_lost),
                host,
                port,
                ssl=ctx,
                server_hostname=server_hostname,
            ),
            within,
        )
    except TimeoutError:
        raise ConnectionFailed(f"cannot connect to {where}: no answer in {within:g} s") from None
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise ConnectionFailed(f"cannot connect to {where}: {connect_reason(exc)}") from None
    local = _address(transport.get_extra_info("sockname"), ("127.0.0.1", 0))
    remote = _address(transport.get_extra_info("peername"), (host, port))
    assert isinstance(transport, asyncio.Transport)
    return Connection(transport, protocol, local, remote)


def _address(value: object, default: Address) -> Address:
    if isinstance(value, tuple) and len(value) >= 2:
        return (str(value[0]), int(value[1]))
    return default
