"""HTTP rules over real sockets: the token (header or query, compared in constant time),
what needs none, 413 before the body is read whole, application/json only, 405 for another
method, the message form."""

from __future__ import annotations

import asyncio
import socket

import httpx

from gridwire.net.sockets import listening_socket
from gridwire.transports.service import MESSAGE_LIMIT
from tests.service.harness import (
    HttpTransport,
    body_of,
    error,
    ok,
    raw_http,
    running_service,
    status_of,
)

TOKEN = "s3cret-token"


async def test_token_rules() -> None:
    async with (
        running_service(token=TOKEN) as running,
        httpx.AsyncClient(base_url=running.base_url) as client,
    ):
        missing = await client.post("/api/status", json={})
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert error(missing.json(), "request") == "a token is needed"
        wrong = await client.post(
            "/api/status", json={}, headers={"authorization": "Bearer s3cret-tokeN"}
        )
        assert wrong.status_code == 401
        assert error(wrong.json(), "request") == "token not accepted"
        prefix = await client.post("/api/status", headers={"authorization": "Bearer s3cret"})
        assert prefix.status_code == 401
        header = await client.post(
            "/api/status", json={}, headers={"authorization": f"bearer {TOKEN}"}
        )
        assert header.status_code == 200 and ok(header.json())["outstations"] == []
        query = await client.post("/api/status", params={"token": TOKEN}, json={})
        assert query.status_code == 200
        message = await client.post("/api", json={"op": "status"})
        assert message.status_code == 401
        unknown = await client.post("/api/whatever", json={})
        assert unknown.status_code == 401  # nothing under /api says anything without it
        # The event stream takes the token as a query parameter.
        events = await client.get("/events")
        assert events.status_code == 401
        async with client.stream("GET", "/events", params={"token": TOKEN}) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
        # The OpenAPI document and the console's own paths need none.
        document = await client.get("/openapi.json")
        assert document.status_code == 200 and document.json()["openapi"] == "3.1.0"
        console = await client.get("/")
        assert console.status_code == 200  # the web console's page, not locked


async def test_bodies_over_four_mebibytes_are_refused_before_they_are_read() -> None:
    async with running_service() as running:
        # Content-Length says too much and no body octet is sent: answered 413 at once.
        head = (
            f"POST /api/status HTTP/1.1\r\nHost: {running.host}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {MESSAGE_LIMIT + 1}\r\n\r\n"
        ).encode()
        response = await raw_http(running.http_port, head)
        assert status_of(response) == 413
        assert error(body_of(response), "request").endswith(f"larger than {MESSAGE_LIMIT} octets")
        # A chunked body is cut off as soon as it passes the limit; its end is never sent.
        chunk = b" " * 65536
        piece = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        chunks = MESSAGE_LIMIT // len(chunk) + 1
        streamed = (
            f"POST /api/status HTTP/1.1\r\nHost: {running.host}\r\n".encode()
            + b"Content-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + piece * chunks
        )
        response = await raw_http(running.http_port, streamed)
        assert status_of(response) == 413
        # Exactly 4 MiB is still read: a JSON object padded with spaces to the limit.
        body = b'{"after": 0}'
        exact = body + b" " * (MESSAGE_LIMIT - len(body))
        async with httpx.AsyncClient(base_url=running.base_url, timeout=60) as client:
            answer = await client.post(
                "/api/status", content=exact, headers={"content-type": "application/json"}
            )
        assert answer.status_code == 400  # read whole, then refused for its parameter
        assert error(answer.json(), "request") == "status: unknown parameter after"


async def test_only_application_json_and_only_post() -> None:
    async with running_service() as running, HttpTransport(running) as http:
        client = http.client
        text = await client.post(
            "/api/status", content=b"{}", headers={"content-type": "text/plain"}
        )
        assert text.status_code == 415
        assert error(text.json(), "request") == "a message body must be application/json"
        form = await client.post("/api/status", data={"a": "b"})
        assert form.status_code == 415
        charset = await client.post(
            "/api/status",
            content=b"{}",
            headers={"content-type": "application/json; charset=utf-8"},
        )
        assert charset.status_code == 200
        # A POST needs a JSON body, {} for no parameters: a body-less one is refused.
        bare = await client.post("/api/status")
        assert bare.status_code == 415
        empty = await client.post(
            "/api/status", content=b"", headers={"content-type": "application/json"}
        )
        assert empty.status_code == 400
        assert error(empty.json(), "request").startswith("a message needs a body")
        get = await client.get("/api/status")
        assert get.status_code == 405 and get.headers["allow"] == "POST"
        assert get.json()["ok"] is False
        not_json = await client.post(
            "/api/status", content=b"{nope", headers={"content-type": "application/json"}
        )
        assert not_json.status_code == 400
        assert error(not_json.json(), "request").startswith("the message is not JSON")
        array = await client.post("/api/status", json=[1])
        assert array.status_code == 400
        unknown = await client.post("/api/nope", json={})
        assert unknown.status_code == 404 and error(unknown.json(), "request") == (
            "unknown operation 'nope'"
        )


async def test_message_form() -> None:
    async with running_service() as running, HttpTransport(running) as http:
        client = http.client
        answer = await client.post("/api", json={"id": "mine-1", "op": "status"})
        assert answer.status_code == 200
        assert answer.json() == {
            "id": "mine-1",
            "ok": True,
            "result": {
                "allow_control": False,
                "outstations": [],
                "total": 0,
                "offset": 0,
                "next": None,
                "summary": {"connected": 0, "connecting": 0, "disconnected": 0},
                "channels": [],
            },
        }
        plain = await client.post("/api/status", json={})
        assert plain.json()["id"] is None
        for message, text in (
            ({"id": 1}, "message field op (the operation's name) must be a string"),
            ({"op": "status", "param": {}}, "unknown message field param"),
            ({"op": "status", "outstation": "y"}, "status takes no outstation"),
            ({"op": "scan", "outstation": "y", "params": {"outstation": "z"}}, "given twice"),
            ({"op": "scan", "params": []}, "message field params must be a JSON object"),
        ):
            response = await client.post("/api", json=message)
            assert response.status_code == 400
            assert text in error(response.json(), "request")
            assert response.json()["id"] == message.get("id")


async def test_many_clients_at_once() -> None:
    async with running_service() as running:

        async def one(n: int) -> int:
            async with HttpTransport(running) as http:
                for _ in range(10):
                    status, body = await http.post("status")
                    assert status == 200 and body["ok"] is True
            return n

        assert sorted(await asyncio.gather(*(one(n) for n in range(20)))) == list(range(20))


async def test_answers_leave_without_waiting_for_an_acknowledgment() -> None:
    """asyncio turns Nagle off only on sockets made with protocol IPPROTO_TCP; the HTTP
    socket is made so, or every small answer's body waits 40 ms for a delayed ACK."""
    sock = listening_socket("127.0.0.1", 0)
    assert sock.proto == socket.IPPROTO_TCP
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            raw = transport.get_extra_info("socket")
            accepted.set_result(raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
    async with server:
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        assert await asyncio.wait_for(accepted, 10) != 0
        writer.close()
