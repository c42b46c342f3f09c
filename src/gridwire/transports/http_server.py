"""The HTTP service on a listening socket, run by uvicorn in the current event loop under the
connection limits (:class:`gridwire.net.connection_limits.Limits`)."""

from __future__ import annotations

import asyncio
import socket

from gridwire.errors import ConfigError
from gridwire.net.connection_limits import Limits
from gridwire.net.http_serving import GuardedServer
from gridwire.operations.dispatch import error_body
from gridwire.transports.http_app import build_app
from gridwire.transports.service import Service

STOP_GRACE = 5
"""Seconds answers under way get to finish once the service stops."""


def _refusal(message: str) -> bytes:
    return error_body("request", message)


class HttpServer:
    """The HTTP service on a socket, run in the current event loop; the service's stop event
    ends it (uvicorn's own signal handling is off)."""

    def __init__(
        self,
        service: Service,
        sock: socket.socket,
        token: str | None,
        limits: Limits | None = None,
    ) -> None:
        self.service = service
        self.socket = sock
        self.token = token
        self.limits = limits or Limits()
        host, port = sock.getsockname()[:2]
        app = build_app(service, token, limits=self.limits, bound=(host, port))
        self._server = GuardedServer(
            app,
            self.limits,
            refusal=_refusal,
            handle_signals=False,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=STOP_GRACE,
        )
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
