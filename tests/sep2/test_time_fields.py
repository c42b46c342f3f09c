"""Time resources as head-ends really send them, through the head-end double over mutual TLS
and the management API (issue 9, items 11 and 12): fields the schema requires left out are
null in the reading with one warning per href; values no clock can hold are refused as a
failed observation and never make ``/time`` answer 500 or a number outside int64."""

from __future__ import annotations

import logging
import time

import httpx
import pytest

from gridwire.sep2.api import management_app
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.errors import HeadEndError
from gridwire.sep2.service import Sep2Service
from tests.sep2.conftest import ClientFactory
from tests.sep2.headend import HeadEndDouble, TimeZone

INT64_MAX = 2**63 - 1


async def get_time(client: Sep2Client, query: str = "") -> httpx.Response:
    app = management_app(Sep2Service(client))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api") as http:
        return await http.get(f"/api/v1/time{query}")


def summer(headend: HeadEndDouble) -> None:
    """US Eastern, daylight saving in effect from a day ago to a day from now."""
    now = int(time.time())
    headend.zone = TimeZone(dst_start=now - 86_400, dst_end=now + 86_400)


async def test_a_real_head_ends_time_without_quality_or_dst_start(
    headend: HeadEndDouble, make_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    summer(headend)
    headend.clock_offset["/tm"] = 600.0
    headend.time_fields["/tm"] = {"quality": None, "dstStartTime": None}
    client = make_client()
    caplog.set_level(logging.WARNING, "gridwire.sep2")
    for _ in range(3):
        await client.observe_once()
    response = await get_time(client)
    assert response.status_code == 200
    body = response.json()
    assert body["source"] == "server" and abs(body["current_time"] - (time.time() + 600)) <= 1.5
    # Sent: tzOffset and dstOffset. Left out: quality (null) and dstStartTime, without which
    # daylight saving cannot be told to apply: dst_active false, local_time null.
    assert (body["tz_offset"], body["dst_offset"]) == (-18000, 3600)
    assert (body["quality"], body["dst_active"], body["local_time"]) == (None, False, None)
    assert (await get_time(client, "?format=text")).text.isdigit()
    # One warning for that href, naming what it left out and the URL, however many polls.
    left_out = [r.getMessage() for r in caplog.records if "leaves out" in r.getMessage()]
    assert left_out == [
        f"Time {headend.url}/tm leaves out dstStartTime, quality, which IEEE 2030.5 requires: "
        "its currentTime is used, and what needs them is null in the reading"
    ]
    assert left_out[0] in client.status().connection.warnings
    # The FSA's own Time (all fields sent) is untouched by it.
    fsa = client.status().timebase.per_fsa[0]
    assert fsa.quality == 3 and fsa.offset_seconds is not None


async def test_current_time_alone(headend: HeadEndDouble, make_client: ClientFactory) -> None:
    headend.time_fields["/tm"] = dict.fromkeys(
        ["dstEndTime", "dstOffset", "dstStartTime", "localTime", "quality", "tzOffset"]
    )
    client = make_client()
    await client.observe_once()
    body = (await get_time(client)).json()
    assert body["source"] == "server" and abs(body["current_time"] - time.time()) <= 1.5
    nulls = {k: body[k] for k in ("local_time", "tz_offset", "dst_offset", "quality")}
    assert nulls == dict.fromkeys(nulls) and body["dst_active"] is False


async def test_no_daylight_saving_needs_no_dates(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # A zone without daylight saving (dstOffset 0) gives local time without the dates.
    headend.time_fields["/tm"] = {"dstOffset": "0", "dstStartTime": None, "dstEndTime": None}
    client = make_client()
    await client.observe_once()
    body = (await get_time(client)).json()
    assert body["local_time"] == body["current_time"] - 18000 and body["dst_active"] is False


@pytest.mark.parametrize(
    ("fields", "refused"),
    [
        ({"currentTime": str(-(2**63)), "tzOffset": str(-(2**31))}, f"currentTime {-(2**63)}"),
        ({"currentTime": str(INT64_MAX)}, f"currentTime {INT64_MAX}"),
        ({"currentTime": "0"}, "currentTime 0"),
        ({"tzOffset": str(-(2**31))}, f"tzOffset {-(2**31)}"),
    ],
    ids=["min-int64-and-min-int32", "max-int64", "zero", "tz-min-int32"],
)
async def test_implausible_times_are_a_failed_observation(
    headend: HeadEndDouble, make_client: ClientFactory, fields: dict[str, str], refused: str
) -> None:
    headend.dcap_time = None  # the FSA's own Time is the only one...
    headend.time_fields["/edev/2/fsa/0/tm"] = dict(fields)
    headend.devices[2].fsas = headend.devices[2].fsas[:1]
    client = make_client()
    with pytest.raises(HeadEndError, match="every Time resource failed"):
        await client.observe_once()
    for query in ("", "?format=text"):
        response = await get_time(client, query)
        assert response.status_code == 503  # ...so nothing was observed: never a 500
    assert (await get_time(client)).json()["source"] == "unavailable"
    error = client.status().connection.error
    assert error is not None and f"{refused} is outside" in error and "plausible" in error


async def test_a_plausible_observation_survives_an_implausible_one(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.clock_offset["/tm"] = 60.0
    client = make_client()
    first = await client.observe_once()
    headend.time_fields["/tm"] = {"currentTime": str(INT64_MAX)}
    await client.observe_once()  # the FSA's Time still answers, so the round goes on
    response = await get_time(client)
    assert response.status_code == 200
    body = response.json()
    assert body["offset_seconds"] == first.offset_seconds and body["current_time"] < 2**62
    warnings = client.status().connection.warnings
    assert any(f"currentTime {INT64_MAX} is outside 2000-01-01..2100-01-01" in w for w in warnings)
