"""No message holds the service (issue 9, item 2): a maximal message of every operation in the
table (just under 4 MiB, filled at each place its parameters can grow; see
tests/service/maximal.py) is answered or refused within a second, while another client's
``status`` keeps being answered, over HTTP and over the line service.

The service runs in the test's event loop, as it does in ``gridwire console``: a message that
held the loop would hold the other client's ``status`` as long. The maximal messages are sent
from a thread with blocking sockets, their octets made before the clock starts, so the
client's own work is not counted against the service.
"""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import orjson
import pytest

from gridwire.der.profiles import PROFILES
from gridwire.master.scans import READ_ITEMS
from gridwire.operations.message import MESSAGE_ITEMS
from gridwire.operations.table import default_table
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.database import Database
from gridwire.outstation.server import OutstationServer
from gridwire.transports.service import MESSAGE_LIMIT
from tests.service.harness import (
    HttpTransport,
    LineTransport,
    Running,
    error,
    ok,
    outstation,
    running_service,
)
from tests.service.harness import transport as open_transport
from tests.service.maximal import maximal_bodies

ANSWERED_WITHIN = 1.0  # seconds, from the first octet sent to the answer's last received
STATUS_WITHIN = 0.2  # seconds: the other client's status, at worst, meanwhile
OVERRIDES = {"outstation": "y", "host": "127.0.0.1", "name": "z"}
OPERATIONS = default_table().names  # every operation, those declared later included


@dataclass
class Outcome:
    label: str
    size: int
    elapsed: float
    status: int | None
    envelope: dict[str, Any] | None
    worst_status: float

    def problems(self) -> list[str]:
        found = []
        if self.envelope is None or not isinstance(self.envelope.get("ok"), bool):
            found.append(f"no envelope (status {self.status})")
        kind = (self.envelope or {}).get("error", {}).get("kind")
        if self.status is not None and self.status >= 500 and kind != "connection":
            found.append(f"HTTP {self.status}")
        if self.elapsed > ANSWERED_WITHIN:
            found.append(f"answered after {self.elapsed:.2f} s")
        if self.worst_status > STATUS_WITHIN:
            found.append(f"status waited {self.worst_status * 1000:.0f} ms")
        return found


def http_sender(port: int) -> Callable[[str, bytes], tuple[int | None, bytes]]:
    def send(name: str, body: bytes) -> tuple[int | None, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            headers = {"content-type": "application/json"}
            connection.request("POST", f"/api/{name}", body, headers)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    return send


def line_sender(port: int) -> Callable[[str, bytes], tuple[int | None, bytes]]:
    def send(name: str, line: bytes) -> tuple[int | None, bytes]:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(line)
            reader = sock.makefile("rb")
            return None, reader.readline()

    return send


def message(transport: str, name: str, params: dict[str, Any]) -> bytes:
    if transport == "http":
        return orjson.dumps(params)
    return orjson.dumps({"id": 1, "op": name, "params": params}) + b"\n"


class Probe:
    """Another client, in a thread of its own: asks ``status`` over the line service again and
    again (every 5 ms) and keeps when each was asked and answered. Being outside the event
    loop, it is held exactly as long as the loop is."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="status-probe", daemon=True)

    async def __aenter__(self) -> Probe:
        self._thread.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()  # its last status is answered by the loop while it is awaited
        await asyncio.to_thread(self._thread.join, 30)

    def _run(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as sock:
            reader = sock.makefile("rb")
            while not self._stop.is_set():
                asked = time.perf_counter()
                sock.sendall(b'{"id":"probe","op":"status"}\n')
                answer = orjson.loads(reader.readline())
                assert answer["ok"] is True, answer
                self.samples.append((asked, time.perf_counter()))
                time.sleep(0.005)

    async def worst(self, start: float, end: float) -> float:
        """The longest a status asked between ``start`` and ``end`` waited (once the one
        under way at ``end`` is answered). One asked before ``start`` is not counted: it
        may have waited on the test making its next message."""
        while not any(asked > end for asked, _ in self.samples[-3:]):
            assert self._thread.is_alive(), "the status probe ended"
            await asyncio.sleep(0.01)
        waits = [done - asked for asked, done in self.samples if start <= asked <= end]
        return max(waits, default=0.0)


async def best_of(
    probe: Probe,
    send: Callable[[str, bytes], tuple[int | None, bytes]],
    name: str,
    label: str,
    octets: bytes,
    tries: int = 3,
) -> Outcome:
    """:func:`timed`, tried again (up to ``tries`` times) while it finds a problem: the
    machine is shared, and a moment's load is not a message holding the loop, which would
    hold it as long every time."""
    outcome = await timed(probe, send, name, label, octets)
    for _ in range(tries - 1):
        if not outcome.problems():
            break
        again = await timed(probe, send, name, label, octets)
        if len(again.problems()) <= len(outcome.problems()):
            outcome = again
    return outcome


async def timed(
    probe: Probe,
    send: Callable[[str, bytes], tuple[int | None, bytes]],
    name: str,
    label: str,
    octets: bytes,
) -> Outcome:
    """Send ``octets`` from a thread and see how long ``probe``'s status waited meanwhile."""
    started = time.perf_counter()
    status, answer = await asyncio.to_thread(send, name, octets)
    ended = time.perf_counter()
    try:
        envelope = orjson.loads(answer)
    except orjson.JSONDecodeError:
        envelope = None
    worst = await probe.worst(started, ended)
    return Outcome(f"{name} {label}", len(octets), ended - started, status, envelope, worst)


@asynccontextmanager
async def served() -> AsyncIterator[Running]:
    """The service, allowed to command, with outstation ``y`` (gridwire's own, in this loop)
    connected."""
    database = Database(DeviceClock())
    for kind in ("bi", "bo", "ai", "ao", "counter"):
        for index in range(4):
            database.add(kind, index)
    server = OutstationServer(database, host="127.0.0.1", port=0)
    await server.start()
    try:
        settings = outstation(
            server.port,
            tasks={"write_time": False, "clear_restart": False},
            profile=PROFILES[0],  # so that the der.* operations look up names in its tables
        )
        async with running_service(allow_control=True, outstations=[settings]) as running:
            yield running
    finally:
        await server.close()


@pytest.mark.serial
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", OPERATIONS)
@pytest.mark.parametrize("transport", ["http", "line"])
async def test_maximal_messages_hold_nobody(transport: str, name: str) -> None:
    async with served() as running:
        operation = running.service.table.get(name)
        assert operation is not None
        port = running.http_port if transport == "http" else running.line_port
        send = http_sender(port) if transport == "http" else line_sender(port)
        outcomes = []
        async with Probe(running.line_port) as probe:
            for label, params in maximal_bodies(operation.params, OVERRIDES, MESSAGE_ITEMS):
                octets = message(transport, name, params)
                assert len(octets) < MESSAGE_LIMIT
                outcomes.append(await best_of(probe, send, name, label, octets))
        assert outcomes, f"{name}: no maximal message"
        for outcome in outcomes:
            print(
                f"{outcome.label}: {outcome.size} octets, answered in "
                f"{outcome.elapsed * 1000:.0f} ms, status waited at most "
                f"{outcome.worst_status * 1000:.0f} ms"
            )
        failed = [f"{o.label}: {', '.join(o.problems())}" for o in outcomes if o.problems()]
        assert not failed, "\n".join(failed)


@pytest.mark.parametrize("transport", ["http", "line"])
async def test_a_read_of_the_most_whole_ranges_is_one_header(transport: str) -> None:
    async with served() as running, open_transport(transport, running) as api:
        read = ok(await api.call("read", "y", points={"ai": ["0-65535"] * READ_ITEMS}))
        # READ (01), g30 v0 (1e 00), qualifier 0x01, start 0 and stop 65535 (two octets each).
        assert read["request"][2:] == "011e00010000ffff"
        assert read["outcome"] == "complete"  # refused or not: the outstation answered
        # Overlapping ranges of the points it serves (ai 0-3): one header, qualifier 0x00.
        read = ok(await api.call("read", "y", points={"ai": ["0-3", "1-2", 3] * 1365}))
        assert read["request"][2:] == "011e00000003"
        assert [o["index"] for o in read["objects"]] == [0, 1, 2, 3]
        too_many = error(
            await api.call("read", "y", points={"ai": ["0-65535"] * (READ_ITEMS + 1)}), "request"
        )
        assert f"at most {READ_ITEMS}" in too_many


async def test_a_message_of_too_many_items_is_refused_before_it_is_parsed() -> None:
    lists = {"outstation": "y", "classes": [[]] * MESSAGE_ITEMS}
    async with served() as running:
        async with HttpTransport(running) as http:
            status, body = await http.post("enable_unsolicited", **lists)
            assert status == 413
            assert f"more than {MESSAGE_ITEMS} items" in error(body, "request")
        async with LineTransport(running) as line:
            await line.send_line(message("line", "enable_unsolicited", lists))
            refused = await line.read_line()
            assert refused is not None and refused["id"] is None  # not parsed: id unknown
            assert f"more than {MESSAGE_ITEMS} items" in error(refused, "request")
            ok(await line.call("status"))  # the connection goes on
