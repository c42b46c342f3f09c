"""What the console's browser tests share: the tabs, the token, and opening the console on
an outstation's tab."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from tests.console.browser import Watched
from tests.console.site import Site

if TYPE_CHECKING:
    from playwright.sync_api import Page


TABS = ["overview", "points", "commands", "events", "traffic", "requests", "der", "evaluate", "log"]
TOKEN = "console-test-token"
WAIT_MS = 15_000


def open_console(watched: Watched, site: Site, outstation: str, tab: str = "overview") -> Page:
    page = watched.page
    page.goto(f"{site.url}#/{outstation}/{tab}")
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    page.wait_for_function(
        "name => window.gridwire.state.stations.get(name)?.loaded === true",
        arg=outstation,
        timeout=WAIT_MS,
    )
    return page


def pane(page: Page, tab: str) -> Any:
    return page.locator(f".pane-{tab}")


def der_call(site: Site, op: str, **params: Any) -> Any:
    """An operation on ``der`` through the service, as a script would ask it."""
    answer = httpx.post(f"{site.running.base_url}/api/{op}", json={"outstation": "der", **params})
    envelope = answer.json()
    assert envelope["ok"], envelope
    return envelope["result"]
