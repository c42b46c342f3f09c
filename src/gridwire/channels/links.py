"""The physical side of a channel: a TCP or TLS connection, a serial port, a UDP socket.

Each is opened with two callbacks, ``on_data`` (octets as they arrive, on the loop) and
``on_lost`` (once, with the reason or None), and gives a :class:`PhysicalLink` to write to.
The master's channels, an outstation's TCP or TLS connection of its own (opened with
``hold``, DESIGN D230) and the simulated outstation's multi-drop server all use them.

A TCP, TLS or serial link hands octets on as asyncio delivers them, with no task switch per
chunk. Its protocol is an :class:`asyncio.BufferedProtocol`: the transport reads into a
buffer, and each chunk is copied out as ``bytes`` of its own size. A plain protocol makes
asyncio allocate 256 KiB for every read, which glibc serves with mmap, mremap and munmap
(three system calls and a page fault per chunk: one chunk per fragment of a multi-fragment
response). The buffer is one per thread, shared by every link its loop reads (DESIGN D146):
asyncio asks for it, reads into it and hands it back in one synchronous step, and the chunk is
copied out before the step ends, so no two links ever hold it at once; a link at rest keeps no
receive buffer of its own. A link opened with ``hold`` keeps the octets that arrive before
:meth:`PhysicalLink.start` (an outstation may send its first unsolicited response the moment
it accepts, before the master's session has taken the connection).

Serial ports are opened through pyserial-asyncio (its termios handling, not ours). A UDP link
sends what is written in one turn of the loop as one datagram, cut at frame boundaries so no
datagram is larger than ``max_datagram`` (each write is whole link frames); it takes
datagrams only from its remote endpoint, or, with no remote endpoint (an outstation that
answers whoever asked), from anyone, answering the latest sender.

Captures: a serial line has no addresses, so its frames are recorded as a TCP flow between
made-up endpoints, 127.0.0.1 (a port derived from the device path) and 127.0.0.2:20000, the
DNP3 port, where Wireshark decodes them without being told (DESIGN D190).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
import zlib
from collections.abc import Callable
from typing import Any, Final

import serial_asyncio  # type: ignore[import-untyped]

from gridwire.capture import Endpoint, TcpFlow
from gridwire.channels.settings import SerialChannel
from gridwire.errors import BadParameter, ConnectionFailed
from gridwire.net.sockets import connect_reason
from gridwire.net.tls_files import ClientTls, TlsFileError, client_context

log = logging.getLogger("gridwire.channels")

OnData = Callable[[bytes], None]
OnLost = Callable[[str | None], None]
PARITY = {"none": "N", "even": "E", "odd": "O", "mark": "M", "space": "S"}
SERIAL_PEER: Endpoint = ("127.0.0.2", 20000)
RECEIVE_BUFFER: Final = 65536
"""Octets read at most at a time: a 2048-octet fragment is about 2.3 KiB of frames."""


class PhysicalLink:
    """An open link: ``write`` octets, ``close`` it; ``local``/``remote`` for captures."""

    def __init__(
        self, transport: asyncio.BaseTransport, protocol: _Protocol | _DatagramProtocol
    ) -> None:
        self._transport = transport
        self._protocol = protocol
        self.local: Endpoint = ("127.0.0.1", 0)
        self.remote: Endpoint = ("127.0.0.1", 0)
        self._flow: TcpFlow | None = None

    @property
    def is_open(self) -> bool:
        return not self._transport.is_closing()

    def write(self, data: bytes) -> None:
        transport = self._transport
        if not transport.is_closing():
            assert isinstance(transport, asyncio.WriteTransport)
            transport.write(data)

    def start(self) -> None:
        """Deliver what arrived so far, and from now on each chunk as it arrives (a link
        opened without ``hold`` delivers from the start)."""
        self._protocol.start()

    def close(self) -> None:
        self._transport.close()

    async def wait_closed(self, within: float = 5.0) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(self._protocol.done), within)
        except TimeoutError:
            if isinstance(self._transport, asyncio.WriteTransport):
                self._transport.abort()

    def capture_flow(self) -> TcpFlow:
        """The flow this link's frames are captured in (one per link, whoever writes)."""
        if self._flow is None:
            self._flow = TcpFlow(self.local, self.remote)
        return self._flow


class _SharedBuffer(threading.local):
    """The receive buffer of this thread's links (see the module's notes)."""

    def __init__(self) -> None:
        self.view = memoryview(bytearray(RECEIVE_BUFFER))


_SHARED = _SharedBuffer()


class _Protocol(asyncio.BufferedProtocol):
    def __init__(self, on_data: OnData, on_lost: OnLost, hold: bool = False) -> None:
        self.on_data = on_data
        self._on_lost = on_lost
        self._held: list[bytes] | None = [] if hold else None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def get_buffer(self, sizehint: int) -> memoryview:
        return _SHARED.view

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(_SHARED.view[:nbytes].tobytes())

    def start(self) -> None:
        held, self._held = self._held, None
        if held:
            self.on_data(b"".join(held))

    def data_received(self, data: bytes) -> None:  # a serial transport calls it directly
        if self._held is not None:
            self._held.append(data)
        else:
            self.on_data(data)

    def eof_received(self) -> bool:
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)
        self._on_lost(str(exc) if exc is not None else None)


def check_tls(tls: ClientTls) -> None:
    """Refuse TLS files that cannot be used as they are given: a parameter that is wrong
    (RequestError with the one-line error of every side's TLS files), not a connection that
    failed."""
    try:
        client_context(tls)
    except TlsFileError as exc:
        raise BadParameter(str(exc)) from None


async def open_tcp(
    host: str,
    port: int,
    tls: ClientTls | None,
    on_data: OnData,
    on_lost: OnLost,
    within: float,
    *,
    hold: bool = False,
) -> PhysicalLink:
    """A TCP connection (over TLS when ``tls`` is given, its context built from the files at
    every connect, so a certificate renewed on disk is used by the next connection);
    ConnectionFailed with the reason when it cannot be made within ``within`` seconds, or
    when the TLS files became unusable. With ``hold``, octets wait for ``start``."""
    loop = asyncio.get_running_loop()
    where = f"{host}:{port}" + (" (TLS)" if tls is not None else "")
    try:
        ctx = client_context(tls) if tls is not None else None
        transport, protocol = await asyncio.wait_for(
            loop.create_connection(
                lambda: _Protocol(on_data, on_lost, hold),
                host,
                port,
                ssl=ctx,
                server_hostname=(tls.server_name or host) if tls is not None else None,
            ),
            within,
        )
    except TlsFileError as exc:
        raise ConnectionFailed(f"TLS settings cannot be used: {exc}") from None
    except TimeoutError:
        raise ConnectionFailed(f"cannot connect to {where}: no answer in {within:g} s") from None
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise ConnectionFailed(f"cannot connect to {where}: {connect_reason(exc)}") from None
    link = PhysicalLink(transport, protocol)
    link.local = _address(transport.get_extra_info("sockname"), ("127.0.0.1", 0))
    link.remote = _address(transport.get_extra_info("peername"), (host, port))
    return link


async def open_serial(settings: SerialChannel, on_data: OnData, on_lost: OnLost) -> PhysicalLink:
    """The serial port of ``settings``, opened; ConnectionFailed when it cannot be."""
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await serial_asyncio.create_serial_connection(
            loop,
            lambda: _Protocol(on_data, on_lost),
            settings.device,
            baudrate=settings.baud,
            bytesize=settings.data_bits,
            parity=PARITY[settings.parity],
            stopbits=settings.stop_bits,
        )
    except (OSError, ValueError) as exc:  # serial.SerialException is an OSError
        raise ConnectionFailed(f"cannot open {settings.device}: {exc}") from None
    link = PhysicalLink(transport, protocol)
    port = 1024 + zlib.crc32(settings.device.encode()) % 60000
    link.local, link.remote = ("127.0.0.1", port), SERIAL_PEER
    return link


class UdpLink(PhysicalLink):
    """A UDP socket: writes of one loop turn leave as datagrams of at most ``max_datagram``."""

    def __init__(
        self,
        transport: asyncio.DatagramTransport,
        protocol: _DatagramProtocol,
        max_datagram: int,
    ) -> None:
        super().__init__(transport, protocol)
        self._datagrams = transport
        self._udp = protocol
        self.max_datagram = max_datagram
        self._pending: list[bytes] = []
        self.datagrams_sent = 0

    def write(self, data: bytes) -> None:
        if self._datagrams.is_closing():
            return
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        self._pending.append(data)

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        peer = self._udp.peer
        if self._datagrams.is_closing() or peer is None:
            return
        datagram = b""
        for chunk in pending:
            if datagram and len(datagram) + len(chunk) > self.max_datagram:
                self._send(datagram, peer)
                datagram = b""
            datagram += chunk
        if datagram:
            self._send(datagram, peer)

    def _send(self, datagram: bytes, peer: tuple[str, int]) -> None:
        self._datagrams.sendto(datagram, peer)
        self.datagrams_sent += 1


class _DatagramProtocol(asyncio.DatagramProtocol):
    def __init__(self, on_data: OnData, on_lost: OnLost, peer: tuple[str, int] | None) -> None:
        self.on_data = on_data
        self._on_lost = on_lost
        self._fixed = peer is not None
        self.peer = peer
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.refused = 0

    def datagram_received(self, data: bytes, addr: Any) -> None:
        sender = (str(addr[0]), int(addr[1]))
        if self._fixed and sender != self.peer:
            self.refused += 1
            return
        self.peer = sender
        self.on_data(data)

    def start(self) -> None:
        """Datagrams are delivered from the start."""

    def error_received(self, exc: Exception) -> None:
        log.debug("UDP error: %s", exc)  # an ICMP port unreachable: the request times out

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)
        self._on_lost(str(exc) if exc is not None else None)


async def open_udp(
    local: tuple[str, int],
    remote: tuple[str, int] | None,
    max_datagram: int,
    on_data: OnData,
    on_lost: OnLost,
) -> UdpLink:
    """A UDP socket bound to ``local``, talking to ``remote`` (None: whoever sent last)."""
    loop = asyncio.get_running_loop()
    peer = None
    if remote is not None:
        peer = await _resolve(remote)
    try:
        transport, protocol = await loop.create_datagram_endpoint(
            lambda: _DatagramProtocol(on_data, on_lost, peer), local_addr=local
        )
    except (OSError, ValueError) as exc:
        raise ConnectionFailed(f"cannot bind UDP {local[0]}:{local[1]}: {exc}") from None
    link = UdpLink(transport, protocol, max_datagram)
    link.local = _address(transport.get_extra_info("sockname"), local)
    if peer is not None:
        link.remote = peer
    return link


async def _resolve(remote: tuple[str, int]) -> tuple[str, int]:
    """The address datagrams from ``remote`` come from (a name resolved to its address)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(remote[0], remote[1], type=2)  # SOCK_DGRAM
    except OSError as exc:
        raise ConnectionFailed(f"cannot resolve {remote[0]}: {exc}") from None
    sockaddr = infos[0][4]
    return (str(sockaddr[0]), int(sockaddr[1]))


def _address(value: object, default: Endpoint) -> Endpoint:
    if isinstance(value, tuple) and len(value) >= 2:
        return (str(value[0]), int(value[1]))
    return default
