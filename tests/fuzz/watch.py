"""The well-behaved client of the fuzz runs, run as a process of its own (so that the fuzzer's
own work never delays it): it asks a service for its status every ``--every`` seconds, one
request at a time on one connection, and records how long each answer took, from the first
octet sent to the last received, and (``--pid``) how long of that the service's process
waited for a core other processes held (Linux schedstat: the machine's share, not the
service's). It says ``ready`` once an answer came; when its standard input closes it stops
and prints one JSON line: the latencies and waits (seconds) and what went wrong.

    python -m tests.fuzz.watch http 127.0.0.1 8815      # POST /api/status, JSON {}
    python -m tests.fuzz.watch line 127.0.0.1 8816      # {"op": "status"} on the line service
    python -m tests.fuzz.watch get 127.0.0.1 8443       # GET /api/v1/status (the sep2 API)

Only the standard library: nothing here shares code with what it measures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import threading
import time
from typing import Any

TIMEOUT = 10.0  # seconds: an answer slower than this is recorded as missing


class Problem(Exception):
    pass


class HttpStatus:
    """``POST /api/status`` (or ``GET`` a path) on one keep-alive connection."""

    def __init__(self, host: str, port: int, method: str, path: str) -> None:
        self.host, self.port, self.method, self.path = host, port, method, path
        self.connection: http.client.HTTPConnection | None = None

    def ask(self) -> None:
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        body = b"{}" if self.method == "POST" else None
        headers = {"Content-Type": "application/json"} if body else {}
        try:
            self.connection.request(self.method, self.path, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise Problem(f"{type(exc).__name__}: {exc}") from None
        if response.status != 200:
            raise Problem(f"HTTP {response.status}: {data[:200]!r}")
        answer = json.loads(data)
        if self.method == "POST" and answer.get("ok") is not True:
            raise Problem(f"not ok: {data[:200]!r}")
        if response.getheader("connection", "").lower() == "close":
            self.close()

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class LineStatus:
    """``{"op": "status"}`` on one line service connection."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.sock: socket.socket | None = None
        self.reader: Any = None
        self.count = 0

    def ask(self) -> None:
        if self.sock is None:
            self.sock = socket.create_connection((self.host, self.port), timeout=TIMEOUT)
            self.reader = self.sock.makefile("rb")
        self.count += 1
        try:
            self.sock.sendall(b'{"op": "status", "id": %d}\n' % self.count)
            line = self.reader.readline()
        except OSError as exc:
            self.close()
            raise Problem(f"{type(exc).__name__}: {exc}") from None
        if not line.endswith(b"\n"):
            self.close()
            raise Problem(f"connection closed after {line[:200]!r}")
        answer = json.loads(line)
        if answer.get("id") != self.count or answer.get("ok") is not True:
            raise Problem(f"not the answer: {line[:200]!r}")

    def close(self) -> None:
        if self.sock is not None:
            self.reader.close()
            self.sock.close()
            self.sock = None


def waited(pid: int | None) -> float:
    """Seconds the service's main thread has spent runnable but not running (waiting for a
    core other processes held): the second field of its schedstat."""
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[1]) / 1e9


def watch(
    client: HttpStatus | LineStatus, every: float, stop: threading.Event, pid: int | None = None
) -> dict[str, Any]:
    latencies: list[float] = []
    started_at: list[float] = []  # time.monotonic() of each, the same clock in every process
    waits: list[float] = []  # the service's wait for a core during each
    problems: list[str] = []
    ready = False
    next_at = time.monotonic()
    while not stop.is_set():
        before = waited(pid)
        started = time.monotonic()
        try:
            client.ask()
        except (Problem, ValueError) as exc:
            problems.append(f"at {started:.3f}: {exc}")
        else:
            latencies.append(time.monotonic() - started)
            started_at.append(started)
            waits.append(waited(pid) - before)
            if not ready:
                ready = True
                print("ready", flush=True)
        next_at = max(next_at + every, time.monotonic())
        stop.wait(next_at - time.monotonic())
    client.close()
    return {"latencies": latencies, "started": started_at, "waits": waits, "problems": problems}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["http", "line", "get"])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--every", type=float, default=0.05)
    parser.add_argument("--pid", type=int, help="the service's process (for its waits)")
    args = parser.parse_args()
    client: HttpStatus | LineStatus
    if args.kind == "http":
        client = HttpStatus(args.host, args.port, "POST", "/api/status")
    elif args.kind == "get":
        client = HttpStatus(args.host, args.port, "GET", "/api/v1/status")
    else:
        client = LineStatus(args.host, args.port)
    stop = threading.Event()

    def wait_for_eof() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=wait_for_eof, daemon=True).start()
    print(json.dumps(watch(client, args.every, stop, args.pid)), flush=True)


if __name__ == "__main__":
    main()
