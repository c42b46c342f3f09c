"""The management API (``/api/v1``): the head-end clock reading and the client's status.

:class:`ManagementApi` holds an ``APIRouter`` that a host application can include under any
prefix. The service behind it is either a service object or a callable consulted on every
request; while the callable gives None (or raises :class:`NotConnected` saying why) the routes
answer ``not_connected``: HTTP 503 with ``Cache-Control: no-store`` and the JSON body
``{"detail": {"kind": "not_connected", "message": WHY}}`` (on ``/time`` in text form the bare
word ``not_connected``), so the API stays up across a connection failure and says why.
Further routes use :meth:`ManagementApi.require` as a dependency to get the service.

With a ``token``, every route of the router (those added later by an embedding application
too) answers only a request that carries it, as ``Authorization: Bearer TOKEN`` or the query
parameter ``token`` (for clients that cannot set a header), compared in constant time by the
guard the console uses too (:mod:`gridwire.net.http_token`); any
other request gets HTTP 401 with ``WWW-Authenticate: Bearer`` and the JSON body
``{"detail": {"kind": "unauthorized", "message": WHY}}``. ``/docs`` and ``/openapi.json``
describe the API and say nothing about the device, so they need no token.

:func:`management_app` given the address it is bound to applies the console's rule on
``Host`` and ``Origin`` (:mod:`gridwire.net.http_origin`): bound to loopback it answers only its
own names (a DNS-rebinding page is refused), and a page of another origin gets nothing under
``/api``; both are 403 with ``{"detail": {"kind": "forbidden", "message": WHY}}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, FastAPI, HTTPException, Query, Request, Security
from fastapi.params import Depends
from fastapi.responses import Response
from fastapi.security import APIKeyQuery, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from gridwire.errors import GridwireError
from gridwire.net.http_origin import SameOrigin, allowed_hosts
from gridwire.net.http_token import WRONG, TokenGuard
from gridwire.sep2.docs import install_docs
from gridwire.sep2.errors import NotConnected
from gridwire.sep2.reading import TimeReading, TimeUnavailable
from gridwire.sep2.service import ManagementService
from gridwire.sep2.status import ClientStatus

ServiceProvider = ManagementService | Callable[[], ManagementService | None]

NO_STORE = {"Cache-Control": "no-store"}
TEXT = "text/plain; charset=utf-8"
NOT_CONNECTED = "not_connected"
UNAUTHORIZED = "unauthorized"
FORBIDDEN = "forbidden"


class NotConnectedDetail(BaseModel):
    kind: Literal["not_connected"] = Field(description="Always not_connected")
    message: str = Field(description="Why no service is available")


class NotConnectedBody(BaseModel):
    detail: NotConnectedDetail


class UnauthorizedDetail(BaseModel):
    kind: Literal["unauthorized"] = Field(description="Always unauthorized")
    message: str = Field(description="What was wrong with the token")


class UnauthorizedBody(BaseModel):
    detail: UnauthorizedDetail


_EPOCH_TEXT = {"schema": {"type": "string", "pattern": "^-?[0-9]+$"}, "example": "1718000000"}
TIME_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The head-end's time now. As JSON, a Time reading; as text "
        "(`?format=text` or `Accept: text/plain`), the epoch seconds as a bare integer.",
        "content": {"text/plain": _EPOCH_TEXT},
    },
    503: {
        "description": "No Time resource observed yet: JSON with `source` `unavailable` and "
        "every derived field null, text `unavailable`. Or no client service yet: "
        "`not_connected` (JSON body below, text `not_connected`).",
        "model": TimeUnavailable | NotConnectedBody,
        "content": {
            "text/plain": {"schema": {"type": "string", "enum": ["unavailable", NOT_CONNECTED]}}
        },
    },
}
STATUS_RESPONSES: dict[int | str, dict[str, Any]] = {
    503: {"description": "No client service yet (`not_connected`)", "model": NotConnectedBody},
}
TOKEN_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {
        "description": "No token, or the wrong one (`unauthorized`): the answer tells nothing",
        "model": UnauthorizedBody,
    },
}
_BEARER = HTTPBearer(
    auto_error=False, scheme_name="bearer", description="Authorization: Bearer TOKEN"
)
_QUERY_TOKEN = APIKeyQuery(
    name="token",
    auto_error=False,
    scheme_name="token",
    description="The token as a query parameter, for clients that cannot set a header",
)


def prefers_text(accept: str | None) -> bool:
    """Whether an Accept header ranks ``text/plain`` (any case) above JSON."""
    if not accept:
        return False
    best_text, best_json = -1.0, -1.0
    for position, item in enumerate(accept.split(",")):
        media, *params = (p.strip() for p in item.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        rank = quality - position * 1e-6  # earlier wins a tie
        media = media.lower()
        if media == "text/plain":
            best_text = max(best_text, rank)
        elif media in ("application/json", "application/*", "*/*"):
            best_json = max(best_json, rank)
    return best_text > 0 and best_text > best_json


def _json(body: object, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status, NO_STORE, "application/json")


def _not_connected(message: str, text: bool) -> Response:
    if text:
        return Response(NOT_CONNECTED, 503, NO_STORE, TEXT)
    return _json({"detail": {"kind": NOT_CONNECTED, "message": message}}, 503)


class TokenCheck:
    """A FastAPI dependency: the request carries ``token`` (header or query, the one guard of
    :mod:`gridwire.net.http_token`), else HTTP 401. The two security parameters only describe the
    ways to give it in the OpenAPI document."""

    def __init__(self, token: str) -> None:
        self.guard = TokenGuard(token)

    async def __call__(
        self,
        request: Request,
        bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)],
        query: Annotated[str | None, Security(_QUERY_TOKEN)],
    ) -> None:
        verdict = self.guard.verdict(request.scope)
        if verdict is not None:
            why = (
                "the token is wrong"
                if verdict == WRONG
                else "a token is needed (Authorization: Bearer)"
            )
            raise HTTPException(
                401,
                detail={"kind": UNAUTHORIZED, "message": why},
                headers={**NO_STORE, "WWW-Authenticate": 'Bearer realm="gridwire sep2"'},
            )


class ManagementApi:
    """The ``/api/v1`` routes over a service or a service provider; with ``token``, every
    route of :attr:`router` requires it."""

    def __init__(self, provider: ServiceProvider, *, token: str | None = None) -> None:
        self.provider = provider
        guard: list[Depends] = [Security(TokenCheck(token))] if token else []
        self.router = APIRouter(dependencies=guard, responses=TOKEN_RESPONSES if token else None)
        self._add_routes()

    def service(self) -> ManagementService:
        """The service now, or :class:`NotConnected` saying why there is none."""
        provider = self.provider
        if isinstance(provider, ManagementService):
            return provider
        try:
            service = provider()
        except NotConnected:
            raise
        except GridwireError as exc:
            raise NotConnected(str(exc)) from exc
        if service is None:
            raise NotConnected("no IEEE 2030.5 client service is available yet")
        return service

    def require(self) -> ManagementService:
        """A FastAPI dependency for further routes: the service, or HTTP 503 not_connected."""
        try:
            return self.service()
        except NotConnected as exc:
            detail = {"kind": NOT_CONNECTED, "message": str(exc)}
            raise HTTPException(503, detail=detail, headers=NO_STORE) from None

    def _add_routes(self) -> None:
        router = self.router

        @router.get(
            "/api/v1/time",
            response_model=TimeReading,
            responses=TIME_RESPONSES,
            summary="The head-end's time, from the cached offset",
            tags=["time"],
        )
        async def get_time(
            request: Request,
            format: Annotated[
                str | None,
                Query(
                    description="`text` answers the bare epoch seconds; `json` (the default) "
                    "a Time reading",
                    json_schema_extra={"enum": ["text", "json"]},
                ),
            ] = None,
        ) -> Response:
            if format not in (None, "text", "json"):
                problem = {
                    "loc": ["query", "format"],
                    "msg": "must be text or json",
                    "type": "enum",
                }
                return _json({"detail": [problem]}, 422)
            text = format == "text" or (
                format is None and prefers_text(request.headers.get("accept"))
            )
            try:
                reading = self.service().time_reading()
            except NotConnected as exc:
                return _not_connected(str(exc), text)
            status = 200 if reading.available else 503
            if text:
                body = str(reading.current_time) if reading.available else "unavailable"
                return Response(body, status, NO_STORE, TEXT)
            return _json(reading, status)

        @router.get(
            "/api/v1/status",
            response_model=ClientStatus,
            responses=STATUS_RESPONSES,
            summary="The client's connection, device and timebase",
            tags=["status"],
        )
        async def get_status() -> Response:
            try:
                status = self.service().status()
            except NotConnected as exc:
                return _not_connected(str(exc), text=False)
            return Response(
                status.model_dump_json(by_alias=True), 200, NO_STORE, "application/json"
            )


def management_app(
    provider: ServiceProvider,
    *,
    title: str = "gridwire IEEE 2030.5 client",
    token: str | None = None,
    bound: tuple[str, int] | None = None,
) -> FastAPI:
    """A standalone app: the routes at ``/api/v1`` (requiring ``token`` when one is given),
    ``/openapi.json``, and ``/docs`` served from packaged Swagger UI assets (no CDN).
    ``bound``, the address it listens on, gives the console's rule on Host and Origin
    (:mod:`gridwire.net.http_origin`): on loopback only its own names, and no page of another
    origin under ``/api``; None checks neither."""
    app = FastAPI(title=title, docs_url=None, redoc_url=None, openapi_url="/openapi.json")
    app.include_router(ManagementApi(provider, token=token).router)
    install_docs(app)
    if bound is not None:
        app.add_middleware(SameOrigin, hosts=allowed_hosts(*bound), refuse=_forbidden)
    return app


def _forbidden(problem: str) -> Response:
    body = orjson.dumps({"detail": {"kind": FORBIDDEN, "message": problem}})
    return Response(body, 403, {**NO_STORE, "connection": "close"}, "application/json")
