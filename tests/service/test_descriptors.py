"""Running out of descriptors is one log line, not a flood (issue 9, item 5).

``gridwire console`` and ``gridwire serve`` run as subprocesses with a limit of 48 open
descriptors; the test holds 80 silent connections to each for three seconds, so that
``accept()`` fails with EMFILE. asyncio's accept loop logs that failure, with a traceback,
once per connection in the listen queue on every turn of the loop (77 MB in 20 s was
measured); the service must say it once, and serve again once the connections go.
"""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.net import free_port, wait_listening
from tests.support.processes import running

DESCRIPTORS = 48
HELD = 80


def _limit_descriptors() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, DESCRIPTORS))


def status_over(command: str, port: int) -> bool:
    """Whether the service answers ``status`` (HTTP for the console, a line for serve)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            if command == "console":
                body = b"{}"
                sock.sendall(
                    f"POST /api/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    "Content-Type: application/json\r\nConnection: close\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                answer = sock.makefile("rb").read()
            else:
                sock.sendall(b'{"op": "status"}\n')
                answer = sock.makefile("rb").readline()
    except OSError:
        return False
    return b'"ok":true' in answer


@pytest.mark.parametrize("command", ["console", "serve"])
def test_running_out_of_descriptors_is_one_log_line(command: str, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "stderr.log"
    args = [sys.executable, "-m", "gridwire", command, "--bind", f"127.0.0.1:{port}"]
    if command == "console":
        args.append("--no-token")
    with (
        log.open("w") as stderr,
        running(
            args,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=_limit_descriptors,
        ) as proc,
    ):
        wait_listening(port, timeout=60)
        held: list[socket.socket] = []
        try:
            held += (socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(HELD))
            time.sleep(3)
            assert proc.poll() is None
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 30
        while not status_over(command, port):  # serving again once descriptors are free
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
    text = log.read_text()
    lines = text.splitlines()
    failures = [line for line in lines if "accept" in line]
    assert len(failures) == 1, f"{len(lines)} lines, {len(text)} octets: {lines[:5]}"
    assert "Too many open files" in failures[0]
    assert "Traceback" not in text
