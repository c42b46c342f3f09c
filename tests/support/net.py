from __future__ import annotations

import itertools
import os
import secrets
import socket
from collections.abc import Iterator

LOWEST = 20001  # above DNP3's registered port, which a test never takes
SPAN = 1000  # ports a worker needs at least, else free_port asks the kernel for one


def _ephemeral_low() -> int:
    """Where the ports connect() and bind(0) take begin (Linux: 32768 by default)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as file:
            return int(file.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _worker_ports() -> Iterator[int] | None:
    """This process's own ports, cycled from a random start: a slice of those below the
    ephemeral range, one slice per pytest-xdist worker (PYTEST_XDIST_WORKER=gwN). No client
    connection takes one as its local port and no other worker picks from the same slice, so
    a port picked here stays free until the test binds it (DESIGN D126)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    span = (_ephemeral_low() - LOWEST) // max(workers, 1)
    if span < SPAN or index >= workers:
        return None
    ports = range(LOWEST + index * span, LOWEST + (index + 1) * span)
    start = secrets.randbelow(span)
    return itertools.cycle([*ports[start:], *ports[:start]])


_PORTS = _worker_ports()


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (never 20000)."""
    if _PORTS is not None:
        for _, port in zip(range(SPAN), _PORTS, strict=False):
            if _bindable(port):
                return port
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            found: int = s.getsockname()[1]
        if found != 20000:
            return found


def wait_listening(port: int, timeout: float = 10.0, host: str = "127.0.0.1") -> None:
    """Block until something accepts on host:port, or raise TimeoutError."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"nothing listening on {host}:{port} after {timeout} s"
                ) from None
            time.sleep(0.05)
