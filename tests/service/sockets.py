"""Raw client sockets for the tests of slow, silent and greedy clients: one that sends half
a request, one that never reads (a 4 KiB receive buffer), and a look at its TCP state
(Linux ``TCP_INFO``) to tell whether the service cut the connection without reading it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

TCP_ESTABLISHED = 1  # tcpi_state values, include/net/tcp_states.h
TCP_CLOSE = 7


@contextlib.asynccontextmanager
async def raw_client(port: int, *, rcvbuf: int | None = None) -> AsyncIterator[socket.socket]:
    """A non-blocking socket connected to 127.0.0.1:``port`` (receive buffer ``rcvbuf``)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    try:
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        yield sock
    finally:
        sock.close()


def post(host: str, path: str, body: bytes, length: int | None = None) -> bytes:
    """A JSON POST as octets; ``length`` declares another Content-Length than the body's."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
    ).encode() + body


async def send(sock: socket.socket, data: bytes) -> None:
    await asyncio.get_running_loop().sock_sendall(sock, data)


async def read_to_end(sock: socket.socket, within: float) -> bytes:
    """Everything the service sends until it closes the connection; TimeoutError when it
    has not closed it within ``within`` seconds."""
    loop = asyncio.get_running_loop()
    received = bytearray()
    async with asyncio.timeout(within):
        while True:
            try:
                chunk = await loop.sock_recv(sock, 65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
    return bytes(received)


def tcp_state(sock: socket.socket) -> int:
    """The connection's TCP state as the kernel has it (first octet of TCP_INFO)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


async def cut_within(sock: socket.socket, within: float) -> float:
    """Wait, reading nothing, until the connection is no longer ESTABLISHED (the service
    reset or closed it); the seconds it took. TimeoutError after ``within`` seconds."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with asyncio.timeout(within):
        while tcp_state(sock) == TCP_ESTABLISHED:  # noqa: ASYNC110 - the kernel tells no one
            await asyncio.sleep(0.05)
    return loop.time() - started
