"""The console under test: the service of tests/service/harness.py with the simulated DER
(outstation ``der``, with the profile and the Device Profile document it writes) and a plain outstation (``plain``: a generic
database of 9,000 points that reports unsolicited), all on a loop in a thread of its own,
so that the browser tests drive Playwright's synchronous API while the service runs.

    with console_site() as site:
        page.goto(site.url)
        site.run(site.change_plain_value())   # a coroutine run on the service's loop
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from gridwire.der.profiles import PROFILES
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import OutstationServer
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile
from tests.service.harness import Running, outstation, running_service

T = TypeVar("T")
START_TIMEOUT = 60.0
S = TypeVar("S")
Maker = Callable[[asyncio.AbstractEventLoop, contextlib.AsyncExitStack], Coroutine[Any, Any, S]]
"""Builds a site on its loop, entering what must stay open on the stack."""

# The plain outstation's points: 9,000 in all, so the Points tab is tried at the size the
# issue names.
PLAIN_POINTS = {"bi": 2500, "bo": 500, "counter": 1000, "ai": 4000, "ao": 1000}


def plain_database() -> Database:
    db = Database()
    for kind, count in PLAIN_POINTS.items():
        for index in range(count):
            value: float | bool | int = index % 2 == 0 if kind in ("bi", "bo") else index
            db.add(kind, index, value)  # type: ignore[arg-type]
    return db


@dataclass
class Site:
    loop: asyncio.AbstractEventLoop
    running: Running
    der: OutstationServer
    plain: OutstationServer
    secured: Running | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.running.base_url + "/"

    @property
    def plain_device(self) -> GenericDevice:
        device = self.plain.device
        assert isinstance(device, GenericDevice)
        return device

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run a coroutine on the service's loop and wait for its answer."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def call(self, fn: Callable[[], T], timeout: float = 30.0) -> T:
        """Run a plain function on the service's loop (where the master and outstations
        live) and wait for its answer."""

        async def wrapped() -> T:
            return fn()

        return self.run(wrapped(), timeout)


@contextlib.contextmanager
def console_site(*, token: str | None = None, secured_token: str | None = None) -> Iterator[Site]:
    """The service with ``der`` and ``plain`` added, and, given ``secured_token``, a second
    service (``site.secured``) that requires that token and has no outstation."""
    folder = tempfile.TemporaryDirectory(prefix="gridwire-console-")

    async def make(loop: asyncio.AbstractEventLoop, stack: contextlib.AsyncExitStack) -> Site:
        simulated = SimulatedDer()
        der = OutstationServer(simulated, host="127.0.0.1", port=0)
        plain = OutstationServer(
            GenericDevice(plain_database()),
            host="127.0.0.1",
            port=0,
            config=OutstationConfig(unsolicited=True),
        )
        for server in (der, plain):
            await server.start()
            stack.push_async_callback(server.close)
        document = Path(folder.name) / "der.xml"
        document.write_bytes(der_device_profile(simulated, port=der.port))
        settings = [
            outstation(der.port, "der", profile=PROFILES[0], device_profile=str(document)),
            outstation(plain.port, "plain", tasks={"enable_unsolicited": [1, 2, 3]}),
        ]
        running = await stack.enter_async_context(
            running_service(allow_control=True, token=token, outstations=settings)
        )
        secured = None
        if secured_token is not None:
            secured = await stack.enter_async_context(running_service(token=secured_token))
        return Site(loop, running, der, plain, secured)

    try:
        with on_its_own_loop("console site", make) as site:
            yield site
    finally:
        folder.cleanup()


@contextlib.contextmanager
def on_its_own_loop(name: str, make: Maker[S]) -> Iterator[S]:
    """What ``make(loop, stack)`` builds, on a new event loop in a thread of its own (the
    browser's calls block the test's thread): what it entered on ``stack`` stays entered
    until the block ends, then is left on that loop. A failure to start is raised here."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    box: dict[str, Any] = {}
    stop = asyncio.Event()

    async def main() -> None:
        async with contextlib.AsyncExitStack() as stack:
            box["site"] = await make(loop, stack)
            started.set()
            await stop.wait()

    def thread_main() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(main())
        except BaseException as exc:  # handed to the waiting test rather than lost
            box["error"] = exc
        finally:
            started.set()

    thread = threading.Thread(target=thread_main, name=name, daemon=True)
    thread.start()
    if not started.wait(START_TIMEOUT):
        raise TimeoutError(f"the {name} did not start in {START_TIMEOUT} s")
    if "error" in box:
        raise box["error"]
    try:
        yield box["site"]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
        loop.close()
