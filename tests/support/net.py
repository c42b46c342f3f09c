from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (never 20000)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if port != 20000:
            return port


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
