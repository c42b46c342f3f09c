"""The line service (``gridwire serve``): one JSON message per line over TCP, on this machine
only.

Each line is a message ``{"op", "outstation", "params", "id"}`` and is answered with one line
holding its envelope; a connection's messages are carried out one after another, so the
answers come back in order. ``{"op": "subscribe"}`` makes the connection also receive the
master's updates, one ``{"event", "data"}`` line each, between the answers. A line longer
than 4 MiB is answered with a request error and the connection closed. ``stop`` ends the
service once its answer is written. Blank lines are ignored. A long answer (a 9000-point scan's
1.3 MB) is written a slice at a time as it is made, unless the connection subscribed (D222);
an exchange's objects, written as its fragments arrived (D235), go out at once.

Connections are held under :class:`~gridwire.net.connection_limits.Limits`: one with nothing
under way, no subscription and no whole line for ``line_idle`` seconds is told so and
closed; one over ``max_connections`` is refused with an error line; one whose client takes
none of an answer for ``send_timeout`` seconds (or of its events for the stream idleness,
60 s) is cut. An operation runs to its end even if its client leaves meanwhile (a TCP
client's close cannot be told from a half-close here without writing to it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import orjson

from gridwire.errors import ConfigError, RequestError
from gridwire.net.binding import is_loopback
from gridwire.net.connection_limits import BACKLOG, Limits, Throttled, cut, guard_accept
from gridwire.net.sockets import listen_failure
from gridwire.operations.dispatch import Answer, AnswerCut, error_answer, unusable_id
from gridwire.operations.encoding import dumps
from gridwire.operations.limits import MESSAGE_LIMIT
from gridwire.operations.message import TooManyItems, check_items
from gridwire.process.caller import on_behalf, peer_name
from gridwire.transports.events import accepted, line_frame, pump
from gridwire.transports.service import Service

log = logging.getLogger("gridwire.service")

SUBSCRIBE = "subscribe"
STOP_GRACE = 5.0


class _Connection:
    """One client: its writer, its subscription, and whether a message is under way."""

    def __init__(self, service: Service, writer: asyncio.StreamWriter, send_timeout: float):
        self.service = service
        self.writer = writer
        self.send_timeout = send_timeout
        self.busy = False
        self.events: asyncio.Task[object] | None = None

    async def write(self, *parts: bytes) -> None:
        for data in parts:  # each handed over as it is: a 1 MB answer is not copied to end it
            self.writer.write(data)
        await self.writer.drain()

    async def send(self, *parts: bytes) -> bool:
        """Write one or more lines (``parts`` in order); False when the client is gone, or
        took none of them for ``send_timeout`` seconds (then the connection is cut)."""
        try:
            if await accepted(self.write(*parts), self.send_timeout):
                return True
        except (ConnectionError, RuntimeError):
            return False
        self.cut()
        return False

    def cut(self) -> None:
        """End the connection at once, dropping what the client has not taken."""
        cut(self.writer.transport)

    def subscribe(self) -> None:
        if self.events is not None:
            return
        service = self.service
        subscriber = service.master.bus.subscribe()

        async def stream() -> None:
            try:
                ended = await pump(
                    subscriber,
                    self.write,
                    line_frame,
                    service.encoder,
                    service.stopping,
                    idle=service.idle,
                )
                if ended == "idle":
                    log.info("line client accepted no write for %s s: cut", service.idle)
                    self.cut()
            except ConnectionError:
                self.cut()
            finally:
                subscriber.close()

        self.events = asyncio.ensure_future(stream())

    async def close(self) -> None:
        if self.events is not None:
            self.events.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await self.events
        self.writer.close()
        try:
            async with asyncio.timeout(self.send_timeout):
                await self.writer.wait_closed()
        except TimeoutError:
            self.cut()  # the client never took the rest
        except (ConnectionError, OSError):
            pass


class LineServer:
    """Serves ``service`` one JSON message per line on ``host:port`` (loopback only)."""

    def __init__(
        self,
        service: Service,
        host: str = "127.0.0.1",
        port: int = 8816,
        *,
        limit: int = MESSAGE_LIMIT,
        limits: Limits | None = None,
    ) -> None:
        if not is_loopback(host):
            raise ConfigError(f"the line service listens on this machine only, not on {host}")
        self.service = service
        self.host = host
        self.requested_port = port
        self.limit = limit
        self.limits = limits or Limits()
        self.throttled = Throttled(log)
        self._server: asyncio.Server | None = None
        self._clients: dict[asyncio.Task[None], _Connection] = {}

    @property
    def port(self) -> int:
        if self._server is None or not self._server.sockets:
            return self.requested_port
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        guard_accept()
        try:
            self._server = await asyncio.start_server(
                self._accept, self.host, self.requested_port, limit=self.limit, backlog=BACKLOG
            )
        except OSError as exc:
            raise listen_failure(self.host, self.requested_port, exc) from None

    async def close(self, grace: float = STOP_GRACE) -> None:
        """Stop listening; let messages under way finish (up to ``grace`` s), close the rest."""
        if self._server is not None:
            self._server.close()
        for task, client in list(self._clients.items()):
            if not client.busy:
                task.cancel()
        if self._clients:
            await asyncio.wait(list(self._clients), timeout=grace)
        for task in list(self._clients):
            task.cancel()
        if self._clients:
            await asyncio.wait(list(self._clients))
        if self._server is not None:
            await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        client = _Connection(self.service, writer, self.limits.send_timeout)
        if len(self._clients) >= self.limits.max_connections:
            await self._refuse(client)
            return
        self._clients[task] = client
        try:
            await self._serve(reader, client)
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("line client failed")
        finally:
            self._clients.pop(task, None)
            await client.close()

    async def _refuse(self, client: _Connection) -> None:
        cap = self.limits.max_connections
        self._note("busy", "holds %d connections, the most it takes: refusing more", cap)
        refusal = RequestError(
            f"the service holds {cap} connections, the most it takes; try again later"
        )
        await client.send(error_answer(refusal).body + b"\n")
        await client.close()

    def _note(self, condition: str, message: str, *args: object) -> None:
        where = f"{self.host}:{self.port}"
        self.throttled.log(
            condition, logging.WARNING, "line service on %s: " + message, where, *args
        )

    async def _serve(self, reader: asyncio.StreamReader, client: _Connection) -> None:
        stopping = self.service.stopping
        idle = self.limits.line_idle
        while not stopping.is_set():
            try:
                # A subscribed client may stay silent: its stream's idleness watches it.
                async with asyncio.timeout(idle if client.events is None else None):
                    line = await reader.readuntil(b"\n")
            except TimeoutError:
                self._note("idle", "closed a connection that sent no whole line for %s s", idle)
                silent = RequestError(f"no whole message arrived for {idle} s; closing")
                await client.send(error_answer(silent).body + b"\n")
                return
            except asyncio.IncompleteReadError as exc:
                line = exc.partial  # the last message may lack its newline
                if not line.strip():
                    return
            except asyncio.LimitOverrunError:
                refusal = RequestError(f"a line is larger than {self.limit} octets; closing")
                await client.send(error_answer(refusal).body + b"\n")
                return
            except ConnectionError:
                return
            if not line.strip():
                continue
            client.busy = True
            try:
                try:
                    answer = await self._answer(line, client)
                except AnswerCut:
                    client.cut()  # half an answer went out: the line cannot be ended well
                    return
                if not await client.send(*((b"\n",) if answer.streamed else (answer.body, b"\n"))):
                    return
            finally:
                client.busy = False
            if reader.at_eof():
                return

    async def _answer(self, line: bytes, client: _Connection) -> Answer:
        try:
            check_items(line)
        except TooManyItems as exc:
            return error_answer(exc)
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            return error_answer(RequestError(f"the line is not JSON: {exc}"))
        try:
            if isinstance(message, dict) and message.get("op") == SUBSCRIBE:
                return self._subscribe(message, client)
            who = peer_name("line", client.writer.get_extra_info("peername"))
            # A long answer goes out a slice at a time as it is written (D222), unless events
            # may come between its slices (a subscribed connection gets whole lines only).
            stream = client.writer.write if client.events is None else None
            return await on_behalf(who, self.service.dispatcher.message(message, stream))
        except AnswerCut:
            raise
        except Exception as exc:  # the dispatcher answers everything: this is a bug
            log.exception("line service: no answer could be made")
            return error_answer(RequestError(f"no answer could be made: {exc}"))

    @staticmethod
    def _subscribe(message: dict[str, object], client: _Connection) -> Answer:
        ident = message.get("id")
        problem = unusable_id(ident)
        if problem is not None:
            return error_answer(RequestError(problem))
        client.subscribe()
        return Answer(b'{"id":' + dumps(ident) + b',"ok":true,"result":{"subscribed":true}}')
