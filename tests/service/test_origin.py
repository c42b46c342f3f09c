"""Cross-site pages cannot command the console (issue 9, item 4), sent as a browser would send
them, octet for octet over a raw socket: a foreign ``Origin``, a DNS-rebinding ``Host``
(a foreign name resolving to 127.0.0.1), a body-less POST (what a ``no-cors`` fetch or a form
can send), a text/plain body. Each is refused, 403 (or 415/400 for the body) with the
envelope, and nothing runs; the console's own page, same origin, is served."""

from __future__ import annotations

from typing import Any

import pytest

from gridwire.net.http_origin import allowed_hosts, origin_problem
from tests.service.harness import Running, body_of, error, raw_http, running_service, status_of


async def send(
    running: Running,
    path: str,
    *,
    method: str = "POST",
    host: str | None = None,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, bytes]:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or running.host}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode()
    response = await raw_http(running.http_port, head + (body or b""), read_for=5)
    return status_of(response), response


def refused(response: bytes) -> str:
    envelope: dict[str, Any] = body_of(response)
    assert envelope["id"] is None
    return error(envelope, "request")


JSON = {"Content-Type": "application/json"}


async def test_a_foreign_origin_is_refused_on_the_api_and_the_event_stream() -> None:
    async with running_service() as running:
        foreign = {**JSON, "Origin": "http://evil.example"}
        status, response = await send(running, "/api/stop", headers=foreign, body=b"{}")
        assert status == 403
        assert "another origin (http://evil.example)" in refused(response)
        status, response = await send(
            running, "/api", headers=foreign, body=b'{"op": "stop", "id": 1}'
        )
        assert status == 403
        status, response = await send(
            running, "/events", method="GET", headers={"Origin": "http://evil.example"}
        )
        assert status == 403
        for origin in ("null", f"http://{running.host}.evil.example", "http://127.0.0.1"):
            status, _ = await send(
                running, "/api/status", headers={**JSON, "Origin": origin}, body=b"{}"
            )
            assert status == 403, origin
        assert not running.service.stopping.is_set()
        # The console's own page: its origin is the service's.
        own = {**JSON, "Origin": f"http://{running.host}"}
        status, response = await send(running, "/api/status", headers=own, body=b"{}")
        assert status == 200 and body_of(response)["ok"] is True


async def test_a_dns_rebinding_host_is_refused_everywhere() -> None:
    async with running_service() as running:
        rebound = f"evil.example:{running.http_port}"
        # The page's own origin, sent to 127.0.0.1 under its own name.
        headers = {**JSON, "Origin": f"http://{rebound}"}
        status, response = await send(
            running, "/api/stop", host=rebound, headers=headers, body=b"{}"
        )
        assert status == 403
        assert "'evil.example:" in refused(response)
        status, _ = await send(running, "/api/stop", host=rebound, headers=JSON, body=b"{}")
        assert status == 403
        status, _ = await send(running, "/", method="GET", host=rebound)
        assert status == 403
        status, _ = await send(running, "/api/status", host="127.0.0.1", headers=JSON, body=b"{}")
        assert status == 403  # the port is part of the name
        assert not running.service.stopping.is_set()
        # Every loopback name of the service is its own.
        for name in ("localhost", "LOCALHOST", "[::1]", "127.0.0.1"):
            host = f"{name}:{running.http_port}"
            status, _ = await send(running, "/api/status", host=host, headers=JSON, body=b"{}")
            assert status == 200, host
        status, _ = await send(running, "/", method="GET")
        assert status != 403  # the console's own page is not refused


async def test_a_post_without_a_json_body_runs_nothing() -> None:
    async with running_service() as running:  # no token, as --no-token
        status, response = await send(running, "/api/stop")  # what a no-cors fetch sends
        assert status == 415
        assert refused(response) == "a message body must be application/json"
        status, response = await send(running, "/api/stop", headers=JSON, body=b"")
        assert status == 400
        assert refused(response).startswith("a message needs a body")
        text = {"Content-Type": "text/plain"}
        status, _ = await send(running, "/api/stop", headers=text, body=b"{}")
        assert status == 415
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        status, _ = await send(running, "/api/stop", headers=form, body=b"a=b")
        assert status == 415
        assert not running.service.stopping.is_set()
        status, _ = await send(running, "/api/stop", headers=JSON, body=b"{}")
        assert status == 200 and running.service.stopping.is_set()


def test_host_names_by_bind() -> None:
    assert allowed_hosts("127.0.0.1", 8815) == frozenset(
        {"127.0.0.1:8815", "localhost:8815", "[::1]:8815"}
    )
    names = allowed_hosts("::1", 80)
    assert names is not None and "localhost" in names and "localhost:80" in names
    # The bound address is a name too: a console on 127.0.0.2 answers what it prints.
    other = allowed_hosts("127.0.0.2", 8815)
    assert other is not None and "127.0.0.2:8815" in other and "127.0.0.1:8815" in other
    assert "127.0.0.3:8815" not in other
    # Beyond loopback the token stands in front; Host is not restricted, Origin still is.
    assert allowed_hosts("0.0.0.0", 8815) is None
    scope = {
        "path": "/api/stop",
        "headers": [(b"host", b"rig.example:8815"), (b"origin", b"http://evil.example")],
    }
    assert origin_problem(scope, None) is not None
    scope["headers"] = [(b"host", b"rig.example:8815"), (b"origin", b"http://rig.example:8815")]
    assert origin_problem(scope, None) is None


@pytest.mark.parametrize("hosts", [0, 2])
def test_a_request_must_carry_one_host(hosts: int) -> None:
    scope = {"path": "/", "headers": [(b"host", b"127.0.0.1:8815")] * hosts}
    assert origin_problem(scope, allowed_hosts("127.0.0.1", 8815)) is not None
