"""The 2030.5 management API holds its connections under the same limits as the console
(issue 9, item 5): ``gridwire sep2`` as a subprocess closes a connection whose request
headers have not arrived whole 10 s (the default) after it opened, says so in one line, and
answers everyone else meanwhile."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx

from tests.sep2.pki import Pki
from tests.sep2.test_cli import GRIDWIRE, tls_flags
from tests.support.net import free_port, wait_listening
from tests.support.processes import running

HEADER_TIMEOUT = 10.0  # the documented default
SLACK = 10.0


def test_half_sent_headers_are_closed_after_the_header_timeout(pki: Pki, tmp_path: Path) -> None:
    port = free_port()
    url = f"https://127.0.0.1:{free_port()}"  # nobody there: the API serves regardless
    cmd = [*GRIDWIRE, "--server", url, *tls_flags(pki), "--api-bind", f"127.0.0.1:{port}"]
    log = tmp_path / "stderr.log"
    with log.open("w") as stderr, running(cmd, stderr=stderr):
        wait_listening(port, timeout=30)
        stalled = []
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", port), timeout=HEADER_TIMEOUT + SLACK)
            sock.sendall(f"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            stalled.append(sock)
        started = time.monotonic()
        status = httpx.get(f"http://127.0.0.1:{port}/api/v1/status", timeout=10)
        assert status.status_code == 200
        try:
            for sock in stalled:
                assert sock.recv(1024) == b""  # closed by the service, nothing said
            took = time.monotonic() - started
        finally:
            for sock in stalled:
                sock.close()
        assert HEADER_TIMEOUT * 0.9 <= took <= HEADER_TIMEOUT + SLACK
    lines = [line for line in log.read_text().splitlines() if "did not arrive" in line]
    assert len(lines) == 1, log.read_text()  # three connections, one line
    assert f"HTTP service on 127.0.0.1:{port}: closed a connection" in lines[0]
