"""Schemathesis (a third-party OpenAPI test tool) generates requests from our /openapi.json
and checks every answer against it (status codes, media types, bodies as documented), in each
state of the service: observed, observed but its Time resource released (rediscovery: the time
zone fields null, dst_active false), not yet observed, and no service at all. The 503s are the
documented answers, so its check that refuses every 5xx is left out."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import given, settings
from schemathesis.checks import not_a_server_error

from gridwire.sep2.api import ServiceProvider, management_app
from gridwire.sep2.service import Sep2Service
from tests.sep2.conftest import ClientFactory
from tests.sep2.headend import HeadEndDouble


def conforms(provider: ServiceProvider) -> list[int]:
    schema = schemathesis.openapi.from_asgi("/openapi.json", management_app(provider))
    seen: list[int] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=30, deadline=None, database=None)
        def check(case: schemathesis.Case) -> None:
            response = case.call_and_validate(excluded_checks=[not_a_server_error])
            seen.append(response.status_code)

        check()
    return seen


@pytest.mark.parametrize("state", ["observed", "released", "unobserved", "not_connected"])
async def test_answers_conform_to_the_openapi_document(
    state: str, headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    if state == "not_connected":
        statuses = conforms(lambda: None)
        assert set(statuses) == {503}
        return
    client = make_client()
    if state != "unobserved":
        await client.observe_once()
    if state == "released":
        client.timebase.release()
        assert client.time_reading().tz_offset is None
    statuses = conforms(Sep2Service(client))
    assert set(statuses) == ({200, 503} if state == "unobserved" else {200})
