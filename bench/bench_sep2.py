"""Requests per second of ``GET /api/v1/time`` and a check that it asks the head-end nothing.

``gridwire sep2`` runs as a subprocess against the head-end test double (real mutual TLS on
127.0.0.1); once it has observed the Time resource, this process calls the API over HTTP with
keep-alive, one request at a time and eight at once, in JSON and in text, then counts the
requests the head-end saw meanwhile. DeviceCapability advertises a one-hour pollRate so the
client's own polling stays out of the window, and counting starts only once the first round
has finished (status ``connected``). Any upstream request during the calls stops the run with
an error: that is the check. Also timed: the same route in process (ASGI, no socket) and the
reading's computation alone.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from tests.sep2.headend import Device, Fsa, HeadEndDouble, lfdi_of
from tests.sep2.pki import Pki, make_pki
from tests.support.net import free_port, wait_listening
from tests.support.processes import running

from gridwire.sep2.api import management_app
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import build_config
from gridwire.sep2.service import Sep2Service

SEQUENTIAL = 3000
CONCURRENT = 8
PER_WORKER = 750


def _double(pki: Pki) -> HeadEndDouble:
    double = HeadEndDouble(pki)
    double.dcap_poll_rate = 3600
    double.time_poll_rate["/tm"] = 3600
    double.time_poll_rate["/edev/0/fsa/0/tm"] = 3600
    double.clock_offset["/tm"] = 3600.0
    double.devices = [Device(lfdi_of(pki.device_der), [Fsa("own"), Fsa("global")])]
    return double


async def _connection(port: int, path: str, count: int) -> None:
    """``count`` keep-alive requests on one connection, each awaited before the next: a bare
    HTTP/1.1 client, so the figure is the server's and not a client library's."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    try:
        for _ in range(count):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 "), head
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            await reader.readexactly(length)
    finally:
        writer.close()
        await writer.wait_closed()


async def _rate(port: int, path: str, connections: int, per_connection: int) -> float:
    started = time.perf_counter()
    await asyncio.gather(*(_connection(port, path, per_connection) for _ in range(connections)))
    return connections * per_connection / (time.perf_counter() - started)


async def _in_process(client: Sep2Client) -> tuple[float, float]:
    app = management_app(Sep2Service(client))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
        started = time.perf_counter()
        for _ in range(SEQUENTIAL):
            await http.get("/api/v1/time")
        asgi = SEQUENTIAL / (time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(100_000):
        client.time_reading()
    return asgi, 100_000 / (time.perf_counter() - started)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch, _double(make_pki(Path(scratch))) as double:
        pki = double.pki
        port = free_port()
        cmd = [
            sys.executable, "-m", "gridwire", "sep2", "--server", double.url,
            "--tls-ca", str(pki.ca), "--tls-certificate", str(pki.device_certificate),
            "--tls-key", str(pki.device_key), "--api-bind", f"127.0.0.1:{port}",
            "--log-level", "warning",
        ]  # fmt: skip
        with running(cmd, stderr=subprocess.DEVNULL):
            wait_listening(port, timeout=30)
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while not _first_round_done(base):
                if time.monotonic() > deadline:
                    raise RuntimeError("the client did not finish a round in 30 s")
                time.sleep(0.1)
            upstream_before = len(double.log)
            json_rate = asyncio.run(_rate(port, "/api/v1/time", 1, SEQUENTIAL))
            text_rate = asyncio.run(_rate(port, "/api/v1/time?format=text", 1, SEQUENTIAL))
            concurrent_rate = asyncio.run(_rate(port, "/api/v1/time", CONCURRENT, PER_WORKER))
            upstream = len(double.log) - upstream_before
        calls = 2 * SEQUENTIAL + CONCURRENT * PER_WORKER
        print(f"   GET /api/v1/time over HTTP, one at a time, JSON: {json_rate:8.0f} requests/s")
        print(f"   GET /api/v1/time over HTTP, one at a time, text: {text_rate:8.0f} requests/s")
        print(
            f"   GET /api/v1/time over HTTP, {CONCURRENT} connections, JSON: "
            f"{concurrent_rate:6.0f} requests/s"
        )
        print(f"   upstream requests during {calls} API calls: {upstream} (expected 0)")
        _no_upstream(upstream)

        config = build_config(
            {
                "server": {"url": double.url},
                "tls": {"ca": str(pki.ca), "certificate": str(pki.device_certificate),
                        "key": str(pki.device_key)},
            }
        )  # fmt: skip

        async def in_process() -> tuple[float, float, int]:
            client = Sep2Client(config)
            await client.observe_once()
            before = client.headend.requests
            rates = await _in_process(client)
            after = client.headend.requests
            await client.stop()
            return rates[0], rates[1], after - before

        asgi, reading, extra = asyncio.run(in_process())
        print(f"   GET /api/v1/time in process (ASGI, no socket):    {asgi:8.0f} requests/s")
        print(f"   time_reading() alone:                          {reading:10.0f} calls/s")
        print(f"   upstream requests during those: {extra} (expected 0)")
        _no_upstream(extra)


def _first_round_done(base: str) -> bool:
    """Whether the client has observed Time and finished its first round of polling."""
    if httpx.get(f"{base}/api/v1/time", timeout=5).status_code != 200:
        return False
    status = httpx.get(f"{base}/api/v1/status", timeout=5).json()
    return bool(status["connection"]["state"] == "connected")


def _no_upstream(count: int) -> None:
    if count:
        raise RuntimeError(f"GET /api/v1/time made {count} upstream requests; it must make none")
