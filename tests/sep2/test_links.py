"""A head-end behind a proxy at ``https://host:port/envoy`` (issue 9, item 10): its links
(``/envoy/edev``, or relative ones such as ``../../tm``) are resolved against the URL each
came in, as RFC 3986 says, never appended to the server URL's path; and a discovery that
cannot read what a link points to shows in status with the URL actually requested."""

from __future__ import annotations

import time

import pytest

from gridwire.sep2.errors import DiscoveryError
from tests.sep2.conftest import ClientFactory
from tests.sep2.headend import Fsa, HeadEndDouble

TOLERANCE = 1.5


@pytest.mark.parametrize("relative", [False, True], ids=["absolute-paths", "relative-references"])
async def test_server_url_with_a_path(
    headend: HeadEndDouble, make_client: ClientFactory, relative: bool
) -> None:
    headend.prefix = "/envoy"
    headend.relative_links = relative
    headend.clock_offset["/tm"] = 3600.0
    headend.clock_offset["/edev/2/fsa/0/tm"] = -120.0
    client = make_client(url=headend.url)  # https://127.0.0.1:PORT/envoy
    reading = await client.observe_once()
    assert reading.source == "server" and abs(reading.offset_seconds - 3600) <= TOLERANCE
    assert abs(reading.current_time - (time.time() + 3600)) <= TOLERANCE
    assert reading.href == "/envoy/tm"
    status = client.status()
    assert status.connection.state == "connected" and status.connection.warnings == []
    assert status.device.end_device == "/envoy/edev/2"
    fsas = status.timebase.per_fsa
    assert [e.fsa for e in fsas] == [
        "/envoy/edev/2/fsa/0",
        "/envoy/edev/2/fsa/1",
        "/envoy/edev/2/fsa/2",
    ]
    assert [e.href for e in fsas] == ["/envoy/edev/2/fsa/0/tm", "/envoy/tm", None]
    assert abs((fsas[0].offset_seconds or 0) + 120) <= TOLERANCE
    # Everything asked for was under the prefix once, nothing under it twice.
    paths = {entry.path for entry in headend.log}
    assert "/envoy/dcap" in paths and "/envoy/edev/2/fsa/0/tm" in paths
    assert all(p.startswith("/envoy/") and not p.startswith("/envoy/envoy") for p in paths)


async def test_a_link_that_leads_nowhere_shows_in_status_with_its_url(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # DeviceCapability answers, but the EndDeviceList and the global Time it links to do not:
    # the round is not a failure (the head-end answers), and status says what is wrong where.
    headend.prefix = "/envoy"
    headend.faults["/edev"] = 404
    headend.faults["/tm"] = 404
    client = make_client(url=headend.url)
    reading = await client.observe_once()
    assert reading.source == "unavailable"
    connection = client.status().connection
    assert connection.state == "connected" and connection.error is None
    warnings = "\n".join(connection.warnings)
    assert f"GET {headend.url}/edev?s=0&l=25 answered HTTP 404" in warnings
    assert f"global Time {headend.url}/tm answered HTTP 404" in warnings
    assert "lists no EndDevice" in warnings
    # Once the links lead somewhere again, the warnings go.
    headend.faults.clear()
    await client.observe_once()
    await client.observe_once()  # the rediscovery the 404 on global Time asked for
    assert client.status().connection.warnings == []
    assert client.time_reading().source == "server"


async def test_a_device_capability_that_is_not_there_names_the_url(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # The server URL's path is where dcap_path starts: /dcap under /envoy is /envoy/dcap.
    headend.prefix = "/envoy"
    client = make_client(url=f"https://127.0.0.1:{headend.port}/elsewhere")
    with pytest.raises(DiscoveryError, match="answered HTTP 404"):
        await client.observe_once()
    error = client.status().connection.error
    assert (
        error
        == f"DeviceCapability https://127.0.0.1:{headend.port}/elsewhere/dcap answered HTTP 404"
    )


async def test_a_link_to_another_origin_is_not_followed(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # An FSA's TimeLink to another host (with our certificate) is refused, not followed.
    headend.devices[2].fsas[2] = Fsa("https://127.0.0.2:1/tm")
    client = make_client()
    assert (await client.observe_once()).source == "server"
    warnings = client.status().connection.warnings
    assert len(warnings) == 1 and "not a usable URL (not on head-end" in warnings[0]
