"""One token guard (gridwire.net.http_token) for the console and the 2030.5 management API: the
same requests pass on both sides, and each side refuses the others with its own published
answer: the console 401 with its envelope (kind request, "a token is needed" for no token,
"token not accepted" for a wrong one, realm "gridwire"), the 2030.5 API
401 with {"detail": {"kind": "unauthorized", ...}} saying which (realm "gridwire sep2")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest

from gridwire.der.profiles import ProfileLoader
from gridwire.master import Master
from gridwire.net.http_token import MISSING, WRONG, TokenGuard, candidates
from gridwire.sep2.api import management_app
from gridwire.transports.http_app import build_app
from gridwire.transports.service import Service

TOKEN = "s3cret-token"
NO_TOKEN: dict[str, str] = {}
WRONG_HEADER = {"Authorization": "Bearer s3cret-tokeN"}
RIGHT_HEADER = {"Authorization": f"bearer {TOKEN}"}


def asgi(app: object) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


@asynccontextmanager
async def console() -> AsyncIterator[httpx.AsyncClient]:
    master = Master(profiles=ProfileLoader(None))
    try:
        async with asgi(build_app(Service(master), TOKEN)) as http:
            yield http
    finally:
        await master.close()


def sep2() -> httpx.AsyncClient:
    return asgi(management_app(lambda: None, token=TOKEN))


def scope(headers: dict[str, str], query: str = "") -> dict[str, object]:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "headers": raw, "query_string": query.encode()}


@pytest.mark.parametrize(
    ("headers", "query", "verdict"),
    [
        (NO_TOKEN, "", MISSING),
        ({"Authorization": f"Basic {TOKEN}"}, "", MISSING),  # not a Bearer credential
        (WRONG_HEADER, "", WRONG),
        ({"Authorization": f"Bearer {TOKEN}x"}, "", WRONG),
        (NO_TOKEN, "token=", WRONG),  # given, empty
        (NO_TOKEN, "token=wrong", WRONG),
        (RIGHT_HEADER, "", None),
        ({"Authorization": f"Bearer  {TOKEN} "}, "", None),
        (NO_TOKEN, f"token={TOKEN}", None),
        (WRONG_HEADER, f"token={TOKEN}", None),  # either one will do
        (NO_TOKEN, f"token={TOKEN}&token=wrong", None),
    ],
)
def test_the_verdict(headers: dict[str, str], query: str, verdict: str | None) -> None:
    assert TokenGuard(TOKEN).verdict(scope(headers, query)) == verdict


def test_candidates_are_every_bearer_header_and_token_parameter() -> None:
    given = scope({"Authorization": "Bearer a"}, "x=1&token=b&token=c")
    given["headers"] = [*given["headers"], (b"authorization", b"BEARER d")]  # type: ignore[list-item]
    assert candidates(given) == [b"a", b"d", b"b", b"c"]


@pytest.mark.parametrize(
    ("headers", "why"), [(NO_TOKEN, "a token is needed"), (WRONG_HEADER, "token not accepted")]
)
async def test_the_console_answers_its_envelope(headers: dict[str, str], why: str) -> None:
    async with console() as http:
        for method, path in (("POST", "/api/status"), ("POST", "/api"), ("GET", "/events")):
            refused = await http.request(method, path, headers=headers, json={})
            assert refused.status_code == 401, path
            assert refused.headers["www-authenticate"] == 'Bearer realm="gridwire"'
            assert refused.headers["cache-control"] == "no-store"
            assert refused.headers["connection"] == "close"
            assert refused.json() == {
                "id": None,
                "ok": False,
                "error": {"kind": "request", "message": why},
            }
        passed = await http.post("/api/status", headers=RIGHT_HEADER, json={})
        assert passed.status_code == 200 and passed.json()["ok"] is True
        assert (await http.get("/openapi.json")).status_code == 200  # needs none


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        (NO_TOKEN, "a token is needed (Authorization: Bearer)"),
        (WRONG_HEADER, "the token is wrong"),
    ],
)
async def test_the_sep2_api_answers_its_detail(headers: dict[str, str], why: str) -> None:
    async with sep2() as http:
        for path in ("/api/v1/time", "/api/v1/status"):
            refused = await http.get(path, headers=headers)
            assert refused.status_code == 401, path
            assert refused.headers["www-authenticate"] == 'Bearer realm="gridwire sep2"'
            assert refused.headers["cache-control"] == "no-store"
            assert refused.json() == {"detail": {"kind": "unauthorized", "message": why}}
        # With the token the guard lets it by: no service yet is the API's own answer.
        passed = await http.get("/api/v1/status", headers=RIGHT_HEADER)
        assert passed.status_code == 503
        assert passed.json()["detail"]["kind"] == "not_connected"
        assert (await http.get("/openapi.json")).status_code == 200  # needs none
