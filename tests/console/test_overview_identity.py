"""The Overview as issue 18 asks, in a real browser: request counts are the service's (not
restarted by opening the page), "points by type" counts what was read, Connect cannot be
pressed while connected, the IIN names are whole, and the device's nameplate (maker, model,
serial) shows at a glance without asking."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from gridwire.simulator.attributes import SERIAL, VENDOR
from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, der_call, open_console
from tests.console.site import Site

if TYPE_CHECKING:
    from playwright.sync_api import Route


def _service_counts(site: Site, name: str) -> dict[str, Any]:
    answer = httpx.post(f"{site.running.base_url}/api/status", json={}).json()
    assert answer["ok"], answer
    entry = next(o for o in answer["result"]["outstations"] if o["name"] == name)
    counts: dict[str, Any] = entry["counts"]
    return counts


def test_overview_counts_points_connect_and_nameplate(watched: Watched, site: Site) -> None:
    der_call(site, "scan", kind="integrity")
    before = _service_counts(site, "der")
    assert before["complete"] >= 1
    page = open_console(watched, site, "der", "overview")
    counts = page.locator(".pane-overview [data-counts]")
    counts.wait_for(timeout=WAIT_MS)
    shown = int(counts.locator("dt:text-is('complete') + dd").inner_text())
    assert shown >= before["complete"]  # the service's count, not zero at the page's start
    assert "since it started" in page.inner_text(".pane-overview")

    connect = page.locator(".pane-overview button[data-op='connect']")
    assert connect.is_disabled()
    assert not page.locator(".pane-overview button[data-op='disconnect']").is_disabled()

    plate = page.locator(".pane-overview [data-nameplate]")
    plate.wait_for(timeout=WAIT_MS)
    assert plate.locator("[data-plate='vendor_name']").inner_text().endswith(VENDOR)
    assert plate.locator("[data-plate='serial_number']").inner_text().endswith(SERIAL)

    values = der_call(site, "values")["values"]
    read = page.locator(".pane-overview [data-points-read]")
    assert int(read.get_attribute("data-points-read") or "0") == len(values)

    for bit in page.locator(".pane-overview .iin-bit").all():
        box = bit.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert box[0] <= box[1], bit.inner_text()
    watched.shot("der-overview-identity")
    page.locator(".pane-overview .iin-grid").scroll_into_view_if_needed()
    watched.shot("der-overview-iin")

    der_call(site, "scan", kind="integrity")
    page.wait_for_function(
        'n => +document.querySelector(".pane-overview [data-counts] dt:nth-of-type(1) + dd")'
        ".textContent > n",
        arg=shown,
        timeout=WAIT_MS,
    )
    watched.assert_clean()


def test_a_manual_outstation_is_not_asked_for_its_attributes(watched: Watched, site: Site) -> None:
    page = watched.page

    def manual(route: Route) -> None:
        body = route.request.post_data_json
        if not (isinstance(body, dict) and body.get("op") == "status"):
            route.continue_()
            return
        answer = route.fetch()
        envelope = answer.json()
        for entry in envelope["result"]["outstations"]:
            entry["manual"] = True  # as `add` with manual would say
        route.fulfill(response=answer, json=envelope)

    page.route("**/api", manual)
    open_console(watched, site, "der", "overview")
    page.locator(".pane-overview dt:text-is('manual') + dd").filter(has_text="yes").wait_for()
    page.wait_for_timeout(1500)
    assert "attributes" not in watched.api_ops
    assert page.locator(".pane-overview [data-nameplate]").count() == 0
    page.unroute("**/api")
    watched.assert_clean()
