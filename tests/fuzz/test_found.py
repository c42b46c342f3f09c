"""Defects the fuzz runs found, each shown by one small request against the service (in this
process, on real sockets); each test failed before its fix."""

from __future__ import annotations

import logging

import httpx
import pytest

from tests.service.harness import running_service


@pytest.mark.parametrize("method", ["CONNECT", "PROPFIND", "BREW"])
async def test_every_method_under_api_is_answered_with_an_envelope(method: str) -> None:
    async with running_service() as svc, httpx.AsyncClient(base_url=svc.base_url) as client:
        for path in ("/api", "/api/status"):
            answer = await client.request(method, path)
            assert answer.status_code == 405
            assert answer.json()["ok"] is False, answer.text
            assert answer.json()["error"]["kind"] == "request"
            assert answer.headers["allow"] == "POST"


async def test_an_outstation_name_cannot_forge_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    forged = "x\n2026-01-01 00:00:00,000 INFO gridwire.service: command operate on der: accepted"
    async with (
        running_service(allow_control=True) as svc,
        httpx.AsyncClient(base_url=svc.base_url) as client,
    ):
        answer = await client.post("/api/write_time", json={"outstation": forged})
        assert answer.json()["error"]["kind"] == "request"
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("gridwire")]
    assert any("write_time" in m for m in logged), logged
    assert not any("\n" in m or "\r" in m for m in logged), logged


async def test_an_outstation_is_never_added_under_a_name_with_a_line_break() -> None:
    async with running_service() as svc, httpx.AsyncClient(base_url=svc.base_url) as client:
        for name in ("a\nb", "a\rb", "a\x1b[2Jb", "a\tb"):
            answer = await client.post(
                "/api/add", json={"name": name, "host": "127.0.0.1", "port": 1, "manual": True}
            )
            assert answer.status_code == 400, answer.text
            assert "printable" in answer.json()["error"]["message"]
        listed = (await client.post("/api/status", json={})).json()["result"]
        assert listed["outstations"] == []
