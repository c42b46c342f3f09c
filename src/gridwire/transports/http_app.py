"""The HTTP side of the service (``gridwire console``): a FastAPI application whose routes are
generated from the operation table.

- ``POST /api/<operation>`` for each operation, ``POST /api`` for the message form;
- ``GET /events``: server-sent events;
- ``GET /openapi.json``: the OpenAPI document built from the same table;
- ``GET /`` and ``GET /console/...``: the web console (:mod:`gridwire.console`).

Every answer under ``/api`` is an envelope. HTTP status codes (decision in docs/DESIGN.md):
200 ok; 400 kind request; 403 not_allowed; 503 connection; 500 internal (a bug: D132); and,
where no operation ran, 401
missing or wrong token, 403 a foreign Host or Origin (:mod:`gridwire.net.http_origin`), 404 no such
operation, 405 not POST, 408 a body that did not arrive in time, 413 body over 4 MiB
(answered from Content-Length, or as soon as a streamed body passes the limit, before it
is read whole; for der.document and der.compare the answer says a larger Device Profile
document is given as a file), 415 a POST whose body is not ``application/json``, 400 one without a body.
A refusal closes the connection.

An operation whose client hangs up before its answer is cancelled (what it already sent
to an outstation stays sent).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import orjson
from fastapi import FastAPI
from fastapi.exception_handlers import http_exception_handler
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from gridwire.console import console_routes
from gridwire.errors import RequestError
from gridwire.net.connection_limits import Limits
from gridwire.net.http_origin import SameOrigin, allowed_hosts, protected
from gridwire.net.http_serving import ABORT, ON_LOST
from gridwire.net.http_token import WRONG, TokenRequired, Verdict
from gridwire.operations.dispatch import Answer, error_answer, error_body
from gridwire.operations.limits import DOCUMENT_OPERATIONS, MESSAGE_LIMIT, TOO_LARGE_FOR_A_MESSAGE
from gridwire.operations.message import TooManyItems, check_items
from gridwire.operations.openapi import openapi_octets
from gridwire.process.caller import on_behalf, peer_name
from gridwire.transports.events import accepted, pump, sse_frame
from gridwire.transports.service import Service

log = logging.getLogger("gridwire.service")

STATUS_BY_KIND = {"request": 400, "not_allowed": 403, "connection": 503, "internal": 500}
JSON = "application/json"
NO_STORE = {"cache-control": "no-store"}
# /api routes take every method, so that one not POST is answered 405 with an envelope.
ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]


class Refused(RequestError):
    """A message refused before any operation ran (kind request): its HTTP status and why."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def _not_post(path: str) -> Refused:
    return Refused(405, f"{path} takes POST", {"allow": "POST"})


def _envelope(body: bytes, status: int, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status, {**NO_STORE, **(headers or {})}, JSON)


def _answer(answer: Answer) -> Response:
    return _envelope(answer.body, 200 if answer.kind is None else STATUS_BY_KIND[answer.kind])


def _refusal(refused: Refused) -> Response:
    # What is left of the request is not read: the connection ends with the answer.
    headers = {"connection": "close", **refused.headers}
    return _envelope(error_body("request", str(refused)), refused.status, headers)


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == JSON


async def read_message(
    request: Request, limit: int = MESSAGE_LIMIT, within: float | None = None, too_large: str = ""
) -> object:
    """The JSON body of a POST: Refused for another method (405), a body too large (413,
    from its Content-Length or as soon as the streamed octets pass ``limit``; ``too_large``
    is added to its message), not
    ``application/json`` (415), missing or not JSON (400), or not whole ``within`` seconds
    (408). ClientDisconnect when the client leaves before it is whole."""
    if request.method != "POST":
        raise _not_post(request.url.path)
    declared = request.headers.get("content-length")
    chunked = "chunked" in request.headers.get("transfer-encoding", "").lower()
    if declared is not None:
        if not declared.isdigit():
            raise Refused(400, "Content-Length is not a number")
        if int(declared) > limit:
            raise Refused(413, f"the message is larger than {limit} octets{too_large}")
    if not _is_json(request.headers.get("content-type", "")):
        raise Refused(415, "a message body must be application/json")
    if not chunked and not (declared is not None and int(declared) > 0):
        raise Refused(400, NO_BODY)
    body = bytearray()
    try:
        async with asyncio.timeout(within):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise Refused(413, f"the message is larger than {limit} octets{too_large}")
    except TimeoutError:
        raise Refused(408, f"the message did not arrive whole within {within} s") from None
    if not body:
        raise Refused(400, NO_BODY)
    try:
        check_items(body)
    except TooManyItems as exc:
        raise Refused(413, str(exc)) from None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Refused(400, f"the message is not JSON: {exc}") from None


NO_BODY = "a message needs a body: a JSON object ({} for an operation without parameters)"


def _api_endpoint(
    handle: Callable[[object], Awaitable[Answer]], limits: Limits, too_large: str = ""
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            message = await read_message(request, within=limits.body_timeout, too_large=too_large)
        except Refused as refused:
            return _refusal(refused)
        except ClientDisconnect:
            log.info("%s: the client left before its message was whole", request.url.path)
            return Response(status_code=400)  # nobody is there to read it
        who = peer_name("http", request.client)
        return await on_behalf(who, _carry_out(request, handle(message)))

    return endpoint


async def _carry_out(request: Request, work: Awaitable[Answer]) -> Response:
    """The answer to ``work``, awaited in this task; it is cancelled if the server says the
    client left first (:data:`gridwire.net.http_serving.ON_LOST`: no task watches for it)."""
    task = asyncio.current_task()
    on_lost = request.scope.get("extensions", {}).get(ON_LOST)
    left = False

    def lost() -> None:
        nonlocal left
        left = True
        if task is not None:
            task.cancel()

    forget = on_lost(lost) if on_lost is not None else None
    try:
        answer = await work
    except asyncio.CancelledError:
        if not left or task is None or task.uncancel() > 0:
            raise
        log.info("%s: the client left; its operation was cancelled", request.url.path)
        return Response(status_code=400)  # nobody is there to read it
    except Exception as exc:  # the dispatcher answers everything: this is a bug
        log.exception("%s: no answer could be made", request.url.path)
        answer = error_answer(RequestError(f"no answer could be made: {exc}"))
    finally:
        if forget is not None:
            forget()
    return _answer(answer)


async def _unknown(request: Request) -> Response:
    name = request.path_params.get("name", "")
    return _refusal(Refused(404, f"unknown operation {name!r}"))


async def _not_routed(request: Request, exc: Exception) -> Response:
    """An HTTP error raised by the router itself: a method no route under ``/api`` lists
    (CONNECT, PROPFIND...) gets the envelope every ``/api`` answer is; the rest FastAPI's."""
    assert isinstance(exc, HTTPException)
    path = request.url.path
    if exc.status_code == 405 and (path == "/api" or path.startswith("/api/")):
        return _refusal(_not_post(path))
    return await http_exception_handler(request, exc)


def _unauthorized(verdict: Verdict) -> Response:
    """The console's answer to a request without its token: "a token is needed" when it
    carries none, "token not accepted" when the one it carries is not the token."""
    challenge = {"www-authenticate": 'Bearer realm="gridwire"'}
    why = "token not accepted" if verdict == WRONG else "a token is needed"
    return _refusal(Refused(401, why, challenge))


class EventStream:
    """``GET /events``: the master's updates as server-sent events until the client goes,
    the service stops, or the stream accepts no write for ``service.idle`` seconds."""

    def __init__(self, service: Service) -> None:
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        service = self.service
        subscriber = service.master.bus.subscribe()
        try:
            start: Message = {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
            if not await accepted(send(start), service.idle):
                await _cut(scope, service.idle)
                return

            async def write(data: bytes) -> None:
                await send({"type": "http.response.body", "body": data, "more_body": True})

            streaming = asyncio.ensure_future(
                pump(
                    subscriber,
                    write,
                    sse_frame,
                    service.encoder,
                    service.stopping,
                    idle=service.idle,
                    keepalive=service.keepalive,
                )
            )
            gone = asyncio.ensure_future(_disconnected(receive))
            done, _ = await asyncio.wait({streaming, gone}, return_when=asyncio.FIRST_COMPLETED)
            for task in (streaming, gone):
                task.cancel()
            if streaming in done and streaming.result() == "idle":
                await _cut(scope, service.idle)
            elif streaming in done:
                end: Message = {"type": "http.response.body", "body": b"", "more_body": False}
                await accepted(send(end), service.idle)
        finally:
            subscriber.close()


async def _cut(scope: Scope, idle: float) -> None:
    """End an event stream that accepted no write for ``idle`` seconds: its connection is
    aborted, and what the client did not take is dropped with it."""
    log.info("event stream accepted no write for %s s: its connection is cut", idle)
    abort = scope.get("extensions", {}).get(ABORT)
    if abort is not None:
        abort()
        await asyncio.sleep(0)  # the server learns the connection is lost
    # Under another server the stream is left unfinished, and that server closes it.


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def build_app(
    service: Service,
    token: str | None = None,
    *,
    limits: Limits | None = None,
    bound: tuple[str, int] | None = None,
) -> FastAPI:
    """The HTTP application over ``service``; ``token`` None serves without one. ``bound``
    is the address it listens on (its Host names; None accepts any Host); ``limits`` give
    the body timeout."""
    limits = limits or Limits()
    app = FastAPI(
        title="gridwire operations API",
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
    )
    document = openapi_octets(service.table)

    async def openapi(request: Request) -> Response:
        return Response(document, 200, media_type=JSON)

    dispatcher = service.dispatcher
    app.add_route("/openapi.json", openapi, ["GET"])
    app.add_route("/api", _api_endpoint(dispatcher.message, limits), ANY_METHOD)
    for operation in service.table:
        name = operation.name

        def handle(message: object, name: str = name) -> Awaitable[Answer]:
            return dispatcher.call(name, message)

        # An operation reading a document says, when its message is too large, how a larger
        # document is given (as a file).
        note = TOO_LARGE_FOR_A_MESSAGE if name in DOCUMENT_OPERATIONS else ""
        app.add_route(f"/api/{name}", _api_endpoint(handle, limits, note), ANY_METHOD)
    app.add_route("/api/{name:path}", _unknown, ANY_METHOD)
    app.router.routes.append(Route("/events", EventStream(service), methods=["GET"]))
    app.router.routes.extend(console_routes())  # the web console: / and /console/
    app.add_exception_handler(HTTPException, _not_routed)
    app.add_middleware(TokenRequired, token=token, covers=protected, refuse=_unauthorized)
    hosts = allowed_hosts(*bound) if bound is not None else None
    app.add_middleware(
        SameOrigin, hosts=hosts, refuse=lambda problem: _refusal(Refused(403, problem))
    )
    return app
