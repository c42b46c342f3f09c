"""Run gridwire's outstation server in a thread of its own (its own event loop), so a test can
drive a third-party master (a subprocess, through the synchronous peer harness) against it;
and capture the loopback traffic of one port with dumpcap for tshark to read."""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from gridwire.outstation.database import Database
from gridwire.outstation.device import Device
from gridwire.outstation.server import OutstationServer, run_outstation
from tests.support.processes import running
from tests.support.tshark import tshark_path

T = TypeVar("T")


class Served:
    def __init__(self, loop: asyncio.AbstractEventLoop, server: OutstationServer) -> None:
        self.loop = loop
        self.server = server

    @property
    def port(self) -> int:
        return self.server.port

    def call(self, function: Callable[[], T], timeout: float = 10.0) -> T:
        """Run ``function`` in the server's thread (to change its database safely)."""

        async def wrapped() -> T:
            return function()

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(timeout)

    def now(self) -> float:
        return self.server.clock.monotonic()


@contextmanager
def serving(device: Device | Database, **options: Any) -> Iterator[Served]:
    """Serve ``device`` on a free loopback port for the duration of the block."""
    loop = asyncio.new_event_loop()
    ready: list[Served] = []
    failure: list[BaseException] = []
    started = threading.Event()
    stop = asyncio.Event()

    async def main() -> None:
        try:
            async with run_outstation(device, "127.0.0.1", 0, **options) as server:
                ready.append(Served(loop, server))
                started.set()
                await stop.wait()
        except BaseException as exc:
            failure.append(exc)
            started.set()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    if not started.wait(30) or failure:
        raise RuntimeError(f"outstation did not start: {failure}")
    try:
        yield ready[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
        loop.close()


@contextmanager
def loopback_capture(port: int, path: Path) -> Iterator[Path]:
    """Capture TCP traffic of ``port`` on the loopback interface into ``path`` (pcap)."""
    dumpcap = str(Path(tshark_path()).with_name("dumpcap"))
    cmd = [dumpcap, "-q", "-P", "-i", "lo", "-f", f"tcp port {port}", "-w", str(path)]
    with running(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        deadline = time.monotonic() + 20
        while not path.exists() or path.stat().st_size == 0:
            if proc.poll() is not None:
                raise RuntimeError(f"dumpcap exited: {proc.stderr.read() if proc.stderr else ''}")
            if time.monotonic() > deadline:
                raise RuntimeError("dumpcap did not start capturing")
            time.sleep(0.05)
        time.sleep(0.3)
        yield path
        time.sleep(0.5)  # let the last segments reach the capture
