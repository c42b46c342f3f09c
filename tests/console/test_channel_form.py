"""The console shows channels (issue 21): an outstation added from the Add form on a named
channel (add_channel) beside its link address, listed by channel and address, and its Overview
naming the channel, where it goes and whether it is open. A screenshot goes to
test-artifacts/console/ for a person to look at."""

from __future__ import annotations

import httpx

from gridwire.outstation.database_file import default_database
from gridwire.outstation.multidrop import DropServer
from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, open_console
from tests.console.site import Site


def _call(site: Site, op: str, **params: object) -> object:
    envelope = httpx.post(f"{site.running.base_url}/api/{op}", json=params).json()
    assert envelope["ok"], envelope
    return envelope["result"]


def test_an_outstation_added_on_a_channel_from_the_form(watched: Watched, site: Site) -> None:
    server = DropServer({1030: default_database(), 1031: default_database()})

    async def serve() -> None:
        await server.serve_tcp("127.0.0.1", 0)

    site.run(serve())
    try:
        tcp = {"kind": "tcp", "name": "gateway", "host": "127.0.0.1", "port": server.port}
        _call(site, "add_channel", channel=tcp)
        page = open_console(watched, site, "der", "overview")
        form = page.locator("form.add-form")
        form.locator("input[name='name']").fill("feeder-31")
        form.locator("summary").click()
        form.locator("input[name='channel']").fill("gateway")
        form.locator("input[name='outstation_address']").fill("1031")
        form.locator("button[type='submit']").click()
        entry = page.locator(".outstation[data-name='feeder-31']")
        entry.locator(".lamp.on").wait_for(timeout=WAIT_MS)
        assert "gateway · address 1031" in entry.inner_text()
        entry.click()
        overview = page.locator(".pane-overview")
        overview.get_by_text("gateway: tcp 127.0.0.1").wait_for(timeout=WAIT_MS)
        assert "open" in overview.inner_text()
        watched.shot("channel-overview")
        _call(site, "remove", outstation="feeder-31")
        _call(site, "remove_channel", channel="gateway")
    finally:
        site.run(server.close())
    watched.assert_clean()
