"""The management API: /api/v1/time in both forms, 503 before any observation, no-store,
no upstream request per call, /api/v1/status, not_connected with a lazily supplied service,
the router mounted under a prefix in a host application, /docs without a CDN, and the OpenAPI
document."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import Depends, FastAPI

from gridwire.sep2.api import ManagementApi, management_app, prefers_text
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.errors import NotConnected
from gridwire.sep2.service import ManagementService, Sep2Service
from tests.sep2.conftest import ClientFactory
from tests.sep2.headend import HeadEndDouble, TimeZone


def asgi(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api")


@pytest.fixture
async def observed(headend: HeadEndDouble, make_client: ClientFactory) -> Sep2Client:
    headend.clock_offset["/tm"] = 3600.0
    client = make_client()
    await client.observe_once()
    return client


@pytest.fixture
async def api(observed: Sep2Client) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi(management_app(Sep2Service(observed))) as http:
        yield http


FIELDS = [
    "current_time", "source", "local_time", "tz_offset", "dst_offset", "dst_active",
    "quality", "offset_seconds", "age_seconds", "href", "timebase_enabled",
]  # fmt: skip


async def test_time_as_json(headend: HeadEndDouble, make_client: ClientFactory) -> None:
    # The head-end an hour ahead, in US Eastern with daylight saving in effect now (from a day
    # ago to a day ahead) and quality 5: every field of the contract's table, of its type.
    now = int(time.time())
    headend.zone = TimeZone(dst_start=now - 86_400, dst_end=now + 86_400, quality=5)
    headend.clock_offset["/tm"] = 3600.0
    client = make_client()
    await client.observe_once()
    async with asgi(management_app(Sep2Service(client))) as http:
        response = await http.get("/api/v1/time")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert list(body) == FIELDS
    assert body["source"] == "server" and type(body["current_time"]) is int
    assert abs(body["current_time"] - (time.time() + 3600)) <= 1.5  # the head-end's, not ours
    # local_time from the server's own fields: EST -18000 plus the DST offset 3600.
    assert body["local_time"] == body["current_time"] - 18000 + 3600
    assert (body["tz_offset"], body["dst_offset"], body["dst_active"]) == (-18000, 3600, True)
    assert type(body["quality"]) is int and body["quality"] == 5
    assert body["href"] == "/tm" and body["timebase_enabled"] is True
    assert type(body["offset_seconds"]) is float and abs(body["offset_seconds"] - 3600) <= 1.5
    assert type(body["age_seconds"]) is float and 0 <= body["age_seconds"] < 30


@pytest.mark.parametrize(
    ("query", "accept"),
    [
        ("?format=text", None),
        ("", "text/plain"),
        ("", "TEXT/PLAIN"),
        ("", "Text/Plain; charset=utf-8"),
        ("", "application/json;q=0.5, text/plain;q=0.9"),
    ],
)
async def test_time_as_text(api: httpx.AsyncClient, query: str, accept: str | None) -> None:
    headers = {"Accept": accept} if accept else {}
    response = await api.get(f"/api/v1/time{query}", headers=headers)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["content-type"].startswith("text/plain")
    assert re.fullmatch(r"[0-9]+", response.text)
    assert abs(int(response.text) - (time.time() + 3600)) <= 1.5


@pytest.mark.parametrize(
    "accept", ["*/*", "application/json", "application/json, text/plain;q=0.5", "text/html"]
)
async def test_json_unless_text_is_preferred(api: httpx.AsyncClient, accept: str) -> None:
    response = await api.get("/api/v1/time", headers={"Accept": accept})
    assert response.headers["content-type"] == "application/json"


async def test_format_json_wins_over_accept(api: httpx.AsyncClient) -> None:
    response = await api.get("/api/v1/time?format=json", headers={"Accept": "text/plain"})
    assert response.json()["source"] == "server"


async def test_unknown_format_is_refused(api: httpx.AsyncClient) -> None:
    response = await api.get("/api/v1/time?format=xml")
    assert response.status_code == 422 and response.headers["cache-control"] == "no-store"


def test_prefers_text() -> None:
    assert prefers_text("text/plain")
    assert prefers_text("application/json;q=0.1,text/plain")
    assert not prefers_text("text/plain;q=0")
    assert not prefers_text("*/*, text/plain")  # a tie goes to the first listed
    assert not prefers_text("text/plain;q=bad")
    assert not prefers_text(None)


async def test_no_upstream_request_per_call(
    api: httpx.AsyncClient, observed: Sep2Client, headend: HeadEndDouble
) -> None:
    before_client, before_server = observed.headend.requests, len(headend.log)
    for _ in range(50):
        assert (await api.get("/api/v1/time")).status_code == 200
        assert (await api.get("/api/v1/time?format=text")).status_code == 200
    assert observed.headend.requests == before_client
    assert len(headend.log) == before_server


async def test_503_before_any_observation(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.stop()  # the head-end is away from the start
    client = make_client()
    async with asgi(management_app(Sep2Service(client))) as http:
        response = await http.get("/api/v1/time")
        assert response.status_code == 503
        assert response.headers["cache-control"] == "no-store"
        body = response.json()
        assert list(body) == FIELDS  # the same keys as a 200, every derived one null
        assert body["source"] == "unavailable" and body["timebase_enabled"] is True
        derived = {k: v for k, v in body.items() if k not in ("source", "timebase_enabled")}
        assert derived == dict.fromkeys(FIELDS[:1] + FIELDS[2:-1])
        text = await http.get("/api/v1/time?format=text")
        assert (text.status_code, text.text) == (503, "unavailable")
        assert text.headers["cache-control"] == "no-store"
        with pytest.raises(ValueError):
            int(text.text)  # the point of the word: a conversion fails loudly
        headend.start()
        await client.observe_once()
        assert (await http.get("/api/v1/time")).status_code == 200


async def test_status_has_the_timebase_block(api: httpx.AsyncClient) -> None:
    response = await api.get("/api/v1/status")
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["connection"]["state"] == "connected"
    block = body["timebase"]
    assert set(block) == {"global", "per_fsa", "fsa_stale_seconds"}
    assert set(block["global"]) == {"offset_seconds", "quality", "href", "age_seconds"}
    assert block["fsa_stale_seconds"] == 3600
    assert [e["fsa"] for e in block["per_fsa"]] == [
        "/edev/2/fsa/0", "/edev/2/fsa/1", "/edev/2/fsa/2",
    ]  # fmt: skip
    assert all(
        {"offset_seconds", "quality", "href", "age_seconds", "stale"} <= set(e)
        for e in block["per_fsa"]
    )
    assert body["device"]["end_device"] == "/edev/2"


async def test_not_connected_until_a_service_is_supplied() -> None:
    async with asgi(management_app(lambda: None)) as http:
        for path in ("/api/v1/time", "/api/v1/status"):
            response = await http.get(path)
            assert response.status_code == 503
            assert response.headers["cache-control"] == "no-store"
            assert response.json()["detail"]["kind"] == "not_connected"
        text = await http.get("/api/v1/time", headers={"Accept": "text/plain"})
        assert (text.status_code, text.text) == (503, "not_connected")


async def test_not_connected_says_why() -> None:
    def provider() -> ManagementService | None:
        raise NotConnected("certificate being replaced")

    async with asgi(management_app(provider)) as http:
        body = (await http.get("/api/v1/status")).json()
        assert body == {
            "detail": {"kind": "not_connected", "message": "certificate being replaced"}
        }


class LfdiService(Sep2Service):
    """An embedding application's extension of the service."""

    def lfdi(self) -> str:
        return self.client.identity.lfdi


async def test_router_mounted_under_a_prefix_with_a_lazy_service(observed: Sep2Client) -> None:
    supplied: list[LfdiService] = []
    sep2 = ManagementApi(lambda: supplied[0] if supplied else None)
    require = Depends(sep2.require)  # evaluated here: the annotations below are strings

    @sep2.router.get("/api/v1/lfdi")
    async def lfdi(service: ManagementService = require) -> dict[str, str]:
        assert isinstance(service, LfdiService)
        return {"lfdi": service.lfdi()}

    host = FastAPI()

    @host.get("/health")
    async def health() -> dict[str, bool]:
        return {"ok": True}

    host.include_router(sep2.router, prefix="/gateway/sep2")
    async with asgi(host) as http:
        assert (await http.get("/health")).json() == {"ok": True}
        early = await http.get("/gateway/sep2/api/v1/time")
        assert early.status_code == 503 and early.json()["detail"]["kind"] == "not_connected"
        extension = await http.get("/gateway/sep2/api/v1/lfdi")
        assert extension.status_code == 503
        assert extension.headers["cache-control"] == "no-store"
        assert extension.json()["detail"]["kind"] == "not_connected"
        supplied.append(LfdiService(observed))
        reading = await http.get("/gateway/sep2/api/v1/time?format=text")
        assert reading.status_code == 200 and reading.text.isdigit()
        status = await http.get("/gateway/sep2/api/v1/status")
        assert status.json()["timebase"]["global"]["href"] == "/tm"
        assert (await http.get("/gateway/sep2/api/v1/lfdi")).json() == {
            "lfdi": observed.identity.lfdi
        }
        assert (await http.get("/api/v1/time")).status_code == 404  # only under the prefix
    paths = host.openapi()["paths"]
    assert "/gateway/sep2/api/v1/time" in paths


async def test_docs_are_served_from_packaged_assets() -> None:
    async with asgi(management_app(lambda: None)) as http:
        page = await http.get("/docs")
        assert page.status_code == 200
        urls = re.findall(r"""(?:src|href|url)\s*[:=]\s*['"]([^'"]+)['"]""", page.text)
        assert "/docs/assets/swagger-ui-bundle.js" in urls and "/openapi.json" in urls
        assert not [u for u in urls if "//" in u]  # nothing from another host
        assert "cdn" not in page.text.lower()
        for asset, kind in [
            ("swagger-ui-bundle.js", "javascript"),
            ("swagger-ui.css", "text/css"),
            ("favicon-32x32.png", "image/png"),
        ]:
            response = await http.get(f"/docs/assets/{asset}")
            assert response.status_code == 200 and kind in response.headers["content-type"]
        bundle = await http.get("/docs/assets/swagger-ui-bundle.js")
        assert len(bundle.content) > 500_000 and b"SwaggerUIBundle" in bundle.content


async def test_openapi_describes_both_media_types_and_the_503() -> None:
    async with asgi(management_app(lambda: None)) as http:
        schema = (await http.get("/openapi.json")).json()
    time_get = schema["paths"]["/api/v1/time"]["get"]
    ok, unavailable = time_get["responses"]["200"], time_get["responses"]["503"]
    assert set(ok["content"]) == {"application/json", "text/plain"}
    assert ok["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TimeReading"
    }
    assert set(unavailable["content"]) == {"application/json", "text/plain"}
    assert unavailable["content"]["text/plain"]["schema"]["enum"] == [
        "unavailable",
        "not_connected",
    ]
    assert [p["name"] for p in time_get["parameters"]] == ["format"]
    assert unavailable["content"]["application/json"]["schema"]["anyOf"] == [
        {"$ref": "#/components/schemas/TimeUnavailable"},
        {"$ref": "#/components/schemas/NotConnectedBody"},
    ]
    schemas = schema["components"]["schemas"]
    # The 200's types are the contract table's, "or null" where it says so, and for quality,
    # which a real head-end leaves out (the contract guarantees only current_time and source).
    reading = schemas["TimeReading"]
    assert list(reading["properties"]) == FIELDS and reading["required"] == FIELDS
    types = {name: _type(p) for name, p in reading["properties"].items()}
    assert types == {
        "current_time": "integer", "source": "server", "local_time": "integer|null",
        "tz_offset": "integer|null", "dst_offset": "integer|null", "dst_active": "boolean",
        "quality": "integer|null", "offset_seconds": "number", "age_seconds": "number",
        "href": "string", "timebase_enabled": "boolean",
    }  # fmt: skip
    # The 503's: source unavailable, every derived field null.
    gone = schemas["TimeUnavailable"]
    assert list(gone["properties"]) == FIELDS and gone["required"] == FIELDS
    types = {name: _type(p) for name, p in gone["properties"].items()}
    assert types == dict.fromkeys(FIELDS, "null") | {
        "source": "unavailable",
        "timebase_enabled": "boolean",
    }
    status = schemas["TimebaseStatus"]
    assert set(status["properties"]) == {"global", "per_fsa", "fsa_stale_seconds"}
    assert "/api/v1/status" in schema["paths"]


def _type(prop: dict[str, object]) -> str:
    """A property's JSON Schema type in short: a constant's value, or types joined by |."""
    if "const" in prop:
        return str(prop["const"])
    options = prop.get("anyOf", [prop])
    assert isinstance(options, list)
    return "|".join(str(o["type"]) for o in options)


TOKEN = "s3cret-token"


@pytest.mark.parametrize(
    ("headers", "query", "status"),
    [
        ({}, "", 401),
        ({"Authorization": f"Bearer {TOKEN}"}, "", 200),
        ({"Authorization": f"bearer {TOKEN}"}, "", 200),  # the scheme is case-insensitive
        ({"Authorization": "Bearer s3cret-tokeN"}, "", 401),
        ({"Authorization": f"Basic {TOKEN}"}, "", 401),
        ({"Authorization": f"Bearer {TOKEN}x"}, "", 401),
        ({}, f"?token={TOKEN}", 200),
        ({}, "?token=wrong", 401),
        ({"Authorization": "Bearer wrong"}, f"?token={TOKEN}", 200),  # either one will do
    ],
)
async def test_token_guards_every_api_route(
    observed: Sep2Client, headers: dict[str, str], query: str, status: int
) -> None:
    async with asgi(management_app(Sep2Service(observed), token=TOKEN)) as http:
        for path in ("/api/v1/time", "/api/v1/status"):
            response = await http.get(path + query, headers=headers)
            assert response.status_code == status, (path, response.text)
            if status == 401:
                assert response.headers["www-authenticate"].startswith("Bearer ")
                assert response.headers["cache-control"] == "no-store"
                assert response.json()["detail"]["kind"] == "unauthorized"
        for free in ("/docs", "/openapi.json", "/docs/assets/swagger-ui.css"):
            assert (await http.get(free)).status_code == 200  # no token needed


async def test_token_guards_routes_an_embedding_application_adds(observed: Sep2Client) -> None:
    sep2 = ManagementApi(Sep2Service(observed), token=TOKEN)
    require = Depends(sep2.require)

    @sep2.router.get("/api/v1/lfdi")
    async def lfdi(service: ManagementService = require) -> dict[str, str]:
        return {"lfdi": "x"}

    host = FastAPI()
    host.include_router(sep2.router, prefix="/sep2")
    async with asgi(host) as http:
        assert (await http.get("/sep2/api/v1/lfdi")).status_code == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert (await http.get("/sep2/api/v1/lfdi", headers=auth)).status_code == 200


async def test_openapi_documents_the_token_only_when_there_is_one() -> None:
    async with asgi(management_app(lambda: None, token=TOKEN)) as http:
        guarded = (await http.get("/openapi.json")).json()
    async with asgi(management_app(lambda: None)) as http:
        open_ = (await http.get("/openapi.json")).json()
    time_get = guarded["paths"]["/api/v1/time"]["get"]
    assert time_get["security"] == [{"bearer": []}, {"token": []}]
    assert time_get["responses"]["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/UnauthorizedBody"
    }
    schemes = guarded["components"]["securitySchemes"]
    assert schemes["bearer"]["scheme"] == "bearer" and schemes["token"]["in"] == "query"
    assert "security" not in open_["paths"]["/api/v1/time"]["get"]
    assert "401" not in open_["paths"]["/api/v1/time"]["get"]["responses"]
    assert "securitySchemes" not in open_.get("components", {})


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 200),
        ({"Host": "localhost:8443"}, 200),
        ({"Host": "[::1]:8443"}, 200),
        ({"Origin": "http://127.0.0.1:8443"}, 200),  # a page the API itself served
        ({"Host": "evil.example:8443"}, 403),  # DNS rebinding: the page's own name
        ({"Host": "127.0.0.1:8444"}, 403),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
    ],
)
async def test_bound_to_loopback_the_api_answers_its_own_names_and_origin_only(
    observed: Sep2Client, headers: dict[str, str], status: int
) -> None:
    app = management_app(Sep2Service(observed), bound=("127.0.0.1", 8443))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8443") as http:
        for path in ("/api/v1/time", "/api/v1/status"):
            response = await http.get(path, headers=headers)
            assert response.status_code == status, (path, response.text)
            if status == 403:
                assert response.json()["detail"]["kind"] == "forbidden"
                assert response.headers["connection"] == "close"
        if "Origin" in headers:  # the documentation is no API: a foreign page may link to it
            assert (await http.get("/docs", headers=headers)).status_code == 200
