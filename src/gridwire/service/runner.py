"""Running the service: a master built from the configuration, its outstations added, and the
HTTP service (``console``) or the line service (``serve``) until ``stop`` or a signal.

Stopping ends every evaluation under way before anything closes (D125,
:mod:`gridwire.operations.evaluation_ends`): the check under way ends and puts back what it
changed, its caller gets the report, and only then do the servers and the master close.
SIGTERM, SIGINT and SIGHUP (unless ignored, as under nohup) stop; a second signal while evaluations end
stops the check under way at once (its restores still run, bounded); a third leaves at once,
and the evaluations not ended are named at ERROR and the exit status is 4.

    config = ServiceConfig(outstations=[...])
    exit_code = asyncio.run(run_console(config, announce=print))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from gridwire.der.profiles import ProfileLoader
from gridwire.der.store import load_point_map
from gridwire.devprofile.reader import read_document_file
from gridwire.errors import ConfigError, GridwireError, OperationError
from gridwire.master import Master, OutstationSettings
from gridwire.net.binding import is_loopback
from gridwire.net.sockets import listening_socket
from gridwire.operations.declaration import OperationTable
from gridwire.operations.evaluation_ends import end_evaluations
from gridwire.process.runtime import settle_heap
from gridwire.service.config import ConsoleSettings, ServiceConfig
from gridwire.transports.http_server import HttpServer
from gridwire.transports.line import LineServer
from gridwire.transports.service import Service

log = logging.getLogger("gridwire.service")

LEFT_CHANGED = 4
"""The exit status when an evaluation could not be ended (what it changed may be left)."""
Announce = Callable[[str], None]
Opener = Callable[
    [ServiceConfig, OperationTable | None, Announce | None, list[OutstationSettings] | None],
    AbstractAsyncContextManager[Service],
]
"""What opens the service: :func:`open_service`, or a cluster's front
(:func:`gridwire.service.cluster.front_opener`)."""


def configure_logging(config: ServiceConfig) -> None:
    """The log at ``log_level`` to ``log_file``, or to standard error."""
    handler: logging.Handler
    if config.log_file is not None:
        try:
            handler = logging.FileHandler(config.log_file, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"log file {config.log_file}: {exc.strerror or exc}") from None
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(config.log_level)
    logging.getLogger("uvicorn.error").addFilter(_unfinished_stream_filter)


def _unfinished_stream_filter(record: logging.LogRecord) -> bool:
    # An event stream closed for idleness is left unfinished on purpose (its connection is
    # closed by the server); uvicorn reports that as an error.
    return record.getMessage() != "ASGI callable returned without completing response."


def resolve_token(console: ConsoleSettings, host: str) -> str | None:
    """The token the HTTP service requires: the one given, else a new one when asked for,
    else none, which only a loopback bind accepts."""
    token = console.token
    if token is None and console.new_token:
        token = secrets.token_hex(24)  # hex: pasted after --token, it never reads as an option
    if token is None and not is_loopback(host):
        raise ConfigError(f"binding {host} beyond loopback needs a token (--token or --new-token)")
    return token


@asynccontextmanager
async def open_service(
    config: ServiceConfig,
    table: OperationTable | None = None,
    announce: Announce | None = None,
    extra: list[OutstationSettings] | None = None,
) -> AsyncIterator[Service]:
    """A master and the service over it, with the configured outstations added."""
    check_files(config)
    master = Master(
        allow_control=config.allow_control,
        capture=config.capture,
        profiles=ProfileLoader(config.tables),
        trace_budget=config.trace_budget,
    )
    service = Service(
        master, table, device_profile=config.device_profile, state_dir=config.state_dir
    )
    try:
        for channel in config.channels:
            master.add_channel(channel)
        await add_all(master, [*config.outstations, *(extra or [])], config.connect_wait, announce)
        yield service
    finally:
        await master.close()


def check_files(config: ServiceConfig) -> None:
    """Refuse at start a point map or Device Profile document that cannot be used, rather
    than at the first operation that needs it: one line naming the flag and the file."""
    if config.tables is not None:
        try:
            load_point_map(config.tables)
        except GridwireError as exc:
            raise ConfigError(f"--tables {exc}") from None
    if config.device_profile is not None:
        try:
            read_document_file(config.device_profile)
        except GridwireError as exc:
            raise ConfigError(f"--device-profile: {exc}") from None


ADDING_AT_ONCE = 1000
"""Configured outstations being added (connecting) at the same time at start."""


async def add_all(
    master: Master,
    outstations: Sequence[OutstationSettings],
    wait: float | None,
    announce: Announce | None,
) -> None:
    """Add the configured outstations at start, up to :data:`ADDING_AT_ONCE` at a time
    (DESIGN D148): one that waits for its connection does not hold up the others. The first
    setting that cannot be used is a ConfigError, and the adding stops."""
    turns = asyncio.Semaphore(ADDING_AT_ONCE)

    async def add(settings: OutstationSettings) -> None:
        async with turns:
            await _add(master, settings, wait, announce)

    try:
        async with asyncio.TaskGroup() as group:
            for settings in outstations:
                group.create_task(add(settings))
    except* Exception as problems:  # the first, as a sequential start would raise it
        raise problems.exceptions[0] from None


async def _add(
    master: Master, settings: OutstationSettings, wait: float | None, announce: Announce | None
) -> None:
    """Add an outstation at start; with ``wait``, keep trying to connect that long. An
    outstation that cannot be reached stays added (disconnected) and is reported."""
    problem: OperationError | None = None
    try:
        await master.add(settings)
    except OperationError as exc:
        problem = exc
    if problem is not None and problem.kind == "connection" and wait is not None:
        try:
            await master.connect(settings.name, wait)
            problem = None
        except OperationError as exc:
            problem = exc
    if problem is None:
        return
    if problem.kind != "connection":
        raise ConfigError(f"outstation {settings.name}: {problem}")
    message = f"outstation {settings.name} is not connected: {problem}"
    log.warning("%s", message)
    if announce is not None:
        announce(message)


class _Signals:
    """The stopping signals: the first stops the service, a second ``hurry``s the ending of
    the evaluations, a third says ``leave`` at once."""

    def __init__(self, stopping: asyncio.Event) -> None:
        self.stopping = stopping
        self.hurry = asyncio.Event()
        self.leave = asyncio.Event()

    def received(self) -> None:
        for event in (self.stopping, self.hurry, self.leave):
            if not event.is_set():
                event.set()
                return


@contextlib.contextmanager
def _signals_stop(stopping: asyncio.Event) -> Iterator[_Signals]:
    loop = asyncio.get_running_loop()
    signals = _Signals(stopping)
    installed = []
    wanted = [signal.SIGINT, signal.SIGTERM]
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN:
        wanted.append(hangup)  # under nohup it stays ignored
    for signum in wanted:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, signals.received)
            installed.append(signum)
    try:
        yield signals
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


async def _until_stopped(service: Service) -> int:
    """Wait for ``stop`` or a signal, then end the evaluations under way: the exit status."""
    with _signals_stop(service.stopping) as signals:
        await service.stopping.wait()
        left = await end_evaluations(service.master, hurry=signals.hurry, leave=signals.leave)
    return LEFT_CHANGED if left else 0


def address_line(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    query = f"?token={token}" if token else ""
    return f"http://{shown}:{port}/{query}"


def _example(host: str, port: int, token: str | None, outstation: str | None) -> str:
    """A command that works as printed: the first thing a newcomer can paste (a scan of
    ``outstation`` when one is sure to be there, else status)."""
    shown = f"[{host}]" if ":" in host else host
    auth = f"-H 'Authorization: Bearer {token}' " if token else ""
    operation, body = (
        ("scan", f'{{"outstation": "{outstation}", "kind": "integrity"}}')
        if outstation
        else ("status", "{}")
    )
    return (
        f"curl -s {auth}-H 'Content-Type: application/json' -d '{body}' "
        f"http://{shown}:{port}/api/{operation}"
    )


async def run_console(
    config: ServiceConfig,
    *,
    extra: Sequence[OutstationSettings] = (),
    table: OperationTable | None = None,
    announce: Announce = print,
    opener: Opener | None = None,
) -> int:
    """``gridwire console``: the HTTP service, with the outstations of ``config`` and
    ``extra`` (the demo's simulated DER, :mod:`gridwire.cli.demo`)."""
    host, port = config.console.address()
    token = resolve_token(config.console, host)
    sock = listening_socket(host, port)
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(sock.close)
        service = await stack.enter_async_context(
            (opener or open_service)(config, table, announce, list(extra))
        )
        server = HttpServer(service, sock, token)
        await server.start()
        stack.push_async_callback(server.close)
        actual = sock.getsockname()[1]
        control = "control allowed" if config.allow_control else "read-only"
        announce(f"gridwire console ({control}): on {address_line(host, actual, token)}")
        first = extra[0].name if extra else None
        announce(f"  try: {_example(host, actual, token, first)}")
        announce("  web console: open the address above in a browser")
        auth = " (Authorization: Bearer TOKEN)" if token else ""
        announce(
            f"  API: POST /api/<operation>{auth}, events: GET /events, OpenAPI: GET /openapi.json"
        )
        settle_heap()
        status = await _until_stopped(service)
    return status


async def run_line(
    config: ServiceConfig,
    *,
    table: OperationTable | None = None,
    announce: Announce = print,
    opener: Opener | None = None,
) -> int:
    """``gridwire serve``: the line service."""
    host, port = config.serve.address()
    async with (opener or open_service)(config, table, announce, None) as service:
        server = LineServer(service, host, port)
        await server.start()
        try:
            control = "control allowed" if config.allow_control else "read-only"
            announce(f"gridwire serve ({control}): listening on {host}:{server.port}")
            settle_heap()
            status = await _until_stopped(service)
        finally:
            await server.close()
    return status
