"""Answer times of the operations service for a 9000-object exchange (an integrity poll of
yadnp3's outstation serving 1000 points of each of its nine types: 18 fragments, about
1.3 MB of JSON), over HTTP (``gridwire console``) and over the line service (``gridwire
serve``), each a subprocess with its own yadnp3 outstation; and whether such answers stall
other clients: a second client asks ``status`` over and over while the polls run.

Figures: the answer time (from sending the request to the answer's last octet received),
the master's own ``elapsed_ms`` for the exchange (send to last fragment), the difference
(the service's share: encoding and transfer), the ``status`` latency alone and beside the
polls, and, in process, how long encoding the answer takes and the longest the event loop
waited on it. Run with ``make bench`` or ``.venv/bin/python -m bench service``.
"""

from __future__ import annotations

import asyncio
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import orjson
from tests.support.net import free_port, wait_listening
from tests.support.peers import yadnp3_outstation
from tests.support.processes import running

from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import Exchange
from gridwire.operations.encoding import dumps, encode

POINTS_PER_TYPE = 1000
POLLS = 30
WARMUP = 3


@contextmanager
def service(mode: str, outstation_port: int) -> Iterator[int]:
    port = free_port()
    args = [sys.executable, "-m", "gridwire", mode, "--bind", f"127.0.0.1:{port}"]
    args += ["--outstation", f"y=127.0.0.1:{outstation_port}", "--log-level", "WARNING"]
    args += ["--no-token"] if mode == "console" else []
    # Ready when the port accepts (not when some wording is printed: a bench that waits for
    # a line that changed would wait for ever).
    with running(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        wait_listening(port, timeout=60)
        yield port


class LineClient:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rb")

    def call(self, message: dict[str, object]) -> bytes:
        self.sock.sendall(orjson.dumps(message) + b"\n")
        return self.file.readline()

    def close(self) -> None:
        self.file.close()
        self.sock.close()


class HttpClient:
    """HTTP/1.1 on one kept-alive socket, read by Content-Length: the client's own parsing
    kept out of the figures (TCP_NODELAY, as browsers set it)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.host = f"127.0.0.1:{port}"
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")

    def call(self, message: dict[str, object]) -> bytes:
        params = dict(message.get("params", {}))  # type: ignore[call-overload]
        if "outstation" in message:
            params["outstation"] = message["outstation"]
        body = orjson.dumps(params)
        head = (
            f"POST /api/{message['op']} HTTP/1.1\r\nHost: {self.host}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.sock.sendall(head.encode() + body)
        length = 0
        while (line := self.file.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return self.file.read(length)

    def close(self) -> None:
        self.file.close()
        self.sock.close()


SCAN = {"op": "scan", "outstation": "y", "params": {"kind": "integrity"}}
STATUS = {"op": "status"}


_FIELD = re.compile(rb'"(object_count|elapsed_ms)":([0-9.]+)')


def head_of(body: bytes) -> dict[str, float]:
    """object_count and elapsed_ms, from the start of the answer: parsing the whole 1.3 MB
    here would hold this process's GIL and delay the probe thread, not the service."""
    return {m[1].decode(): float(m[2]) for m in _FIELD.finditer(body[:600])}


def timed(call: Callable[[], bytes]) -> tuple[float, bytes]:
    started = time.perf_counter()
    answer = call()
    return (time.perf_counter() - started) * 1000.0, answer


def probe(client: LineClient | HttpClient, stop: threading.Event, into: list[float]) -> None:
    while not stop.is_set():
        into.append(timed(lambda: client.call(STATUS))[0])


def figures(label: str, values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[max(0, int(len(ordered) * 0.9) - 1)]
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    return (
        f"   {label:34} median {statistics.median(ordered):7.1f} ms  p90 {p90:7.1f}  "
        f"p99 {p99:7.1f}  max {ordered[-1]:7.1f}  (n={len(ordered)})"
    )


def measure(mode: str, make: Callable[[int], LineClient | HttpClient], port: int) -> None:
    main, other = make(port), make(port)
    try:
        alone = [timed(lambda: other.call(STATUS))[0] for _ in range(200)]
        for _ in range(WARMUP):
            main.call(SCAN)
        answers, elapsed, sizes = [], [], []
        stop = threading.Event()
        beside: list[float] = []
        prober = threading.Thread(target=probe, args=(other, stop, beside))
        prober.start()
        try:
            for _ in range(POLLS):
                took, body = timed(lambda: main.call(SCAN))
                result = head_of(body)
                assert result["object_count"] == 9000, result
                answers.append(took)
                elapsed.append(float(result["elapsed_ms"]))
                sizes.append(len(body))
        finally:
            stop.set()
            prober.join()
        share = [a - e for a, e in zip(answers, elapsed, strict=True)]
        print(f"   {mode}: integrity poll, 9000 objects, {statistics.median(sizes) / 1e6:.2f} MB")
        print(figures("answer time", answers))
        print(figures("master elapsed_ms", elapsed))
        print(figures("service share (answer - elapsed)", share))
        print(figures("status alone", alone))
        print(figures("status beside the polls", beside))
    finally:
        main.close()
        other.close()


async def _ticker(gaps: list[float]) -> None:
    """Records how long each turn of the event loop took, until cancelled."""
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0)
        now = time.perf_counter()
        gaps.append((now - last) * 1000.0)
        last = now


def in_process() -> None:
    objects = [
        DnpObject("ai", 30, 1, i, None, i * 1.5, ["ONLINE"], None, None, False) for i in range(9000)
    ]
    exchange = Exchange("READ", None, 1, "complete", 18, [], 9000, 50.0, "c0", [], objects)

    async def run() -> tuple[list[float], list[float], list[float]]:
        whole, sliced, stalls = [], [], []
        for _ in range(20):
            started = time.perf_counter()
            dumps(exchange)
            whole.append((time.perf_counter() - started) * 1000.0)
            gaps: list[float] = []
            task = asyncio.ensure_future(_ticker(gaps))
            await asyncio.sleep(0)
            started = time.perf_counter()
            await encode(exchange)
            sliced.append((time.perf_counter() - started) * 1000.0)
            task.cancel()
            stalls.append(max(gaps))
        return whole, sliced, stalls

    whole, sliced, stalls = asyncio.run(run())
    print("   in process, the 9000-object Exchange:")
    print(figures("orjson.dumps in one go", whole))
    print(figures("encode() in slices", sliced))
    print(figures("longest the loop waited", stalls))


def main() -> None:
    in_process()
    with ExitStack() as stack:
        line_peer = stack.enter_context(yadnp3_outstation(points=POINTS_PER_TYPE))
        http_peer = stack.enter_context(yadnp3_outstation(points=POINTS_PER_TYPE))
        line_port = stack.enter_context(service("serve", line_peer.port))
        http_port = stack.enter_context(service("console", http_peer.port))
        measure("line (gridwire serve)", LineClient, line_port)
        measure("HTTP (gridwire console)", HttpClient, http_port)
