"""The HTTP service on a listening socket, run by uvicorn in the current event loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn

from gridwire.errors import ConfigError
from gridwire.service.core import Service
from gridwire.service.http_app import build_app

STOP_GRACE = 5
"""Seconds answers under way get to finish once the service stops."""


class _Uvicorn(uvicorn.Server):
    """uvicorn without its own signal handling: the service's stop event ends it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class HttpServer:
    """The HTTP service on a socket, run in the current event loop."""

    def __init__(self, service: Service, sock: socket.socket, token: str | None) -> None:
        self.service = service
        self.socket = sock
        self.token = token
        config = uvicorn.Config(
            build_app(service, token),
            log_config=None,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=STOP_GRACE,
        )
        self._server = _Uvicorn(config)
        self._task: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        port: int = self.socket.getsockname()[1]
        return port

    async def start(self) -> None:
        self._task = asyncio.ensure_future(self._server.serve(sockets=[self.socket]))
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise ConfigError("the HTTP service did not start")
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        self._server.should_exit = True
        if self._task is not None:
            await self._task
        self.socket.close()
