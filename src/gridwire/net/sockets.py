"""Listening sockets for the HTTP services (the console and the 2030.5 management API)."""

from __future__ import annotations

import errno
import os
import re
import socket

from gridwire.errors import ConfigError


def listening_socket(host: str, port: int, setting: str | None = None) -> socket.socket:
    """A socket listening on ``host:port``, bound before anything starts so that a taken port
    is one clear line (ConfigError, naming ``setting`` when given).

    It is made with protocol IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on
    sockets that say so, and with Nagle on the body of each small answer waited for the
    client's delayed acknowledgment of its headers, about 40 ms an answer (measured)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise listen_failure(host, port, exc, setting) from None
    return sock


def listen_failure(host: str, port: int, exc: OSError, setting: str | None = None) -> ConfigError:
    """The one wording of a port that cannot be listened on, for every command:
    "127.0.0.1:8816 is already in use", else the system's reason without its errno."""
    where = f"{setting} " if setting else ""
    if exc.errno == errno.EADDRINUSE:
        return ConfigError(f"{where}{host}:{port} is already in use")
    reason = (os.strerror(exc.errno) if exc.errno else str(exc)).lower()
    return ConfigError(f"{where}cannot listen on {host}:{port}: {reason}")


_CONNECT_WORDS = {
    errno.ECONNREFUSED: "connection refused",
    errno.EHOSTUNREACH: "no route to host",
    errno.ENETUNREACH: "network unreachable",
    errno.ETIMEDOUT: "timed out",
    errno.ECONNRESET: "connection reset",
}


def connect_reason(exc: BaseException) -> str:
    """Why a connect failed, in words and without the errno: "connection refused", "no route
    to host", "timed out" (not "[Errno 111] Connect call failed ('127.0.0.1', 20001)")."""
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, socket.gaierror):
        return f"name not known ({exc.strerror or exc})"
    if isinstance(exc, OSError) and exc.errno is not None and not hasattr(exc, "library"):
        return _CONNECT_WORDS.get(exc.errno) or os.strerror(exc.errno).lower()
    # Several addresses tried (IPv6 and IPv4 of "localhost"): one reason when all agree.
    numbers = set(re.findall(r"\[Errno (\d+)\]", str(exc)))
    if len(numbers) == 1:
        return connect_reason(OSError(int(numbers.pop()), ""))
    return str(exc) or type(exc).__name__
