"""The console's Evaluate tab in a real browser against the simulated DER: a short
evaluation filling its rows live with three downloads, a check's frames opened in
Traffic, and a check heard while the page asks for the evaluation's status kept."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, open_console, publish_check
from tests.console.site import Site

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route


def hold_operation(page: Page, op: str) -> list[Route]:
    """Hold every ``op`` message the page sends to /api (the list fills as they come; each
    goes on when the test continues it); every other message goes on at once."""
    held: list[Route] = []

    def hold(route: Route) -> None:
        body = route.request.post_data_json
        if isinstance(body, dict) and body.get("op") == op:
            held.append(route)
        else:
            route.continue_()

    page.route("**/api", hold)
    return held


def test_a_short_evaluation_fills_rows_live_and_offers_three_downloads(
    watched: Watched, site: Site, tmp_path: Path
) -> None:
    page = open_console(watched, site, "der", "evaluate")
    link = page.locator("input[data-check='LINK-001']")
    link.wait_for(state="attached", timeout=WAIT_MS)
    # Deviation checks are offered only once deviations are allowed.
    assert link.is_disabled()
    page.check("input[name='allow_deviations']")
    assert link.is_enabled()
    for box in page.locator("input[data-set]").all():
        box.uncheck()
    for check in ("MON-001", "ALARM-001", "LINK-001"):
        page.check(f"input[data-check='{check}']")
    # The evaluate call is held on its way, so the page can be seen while it runs.
    held = hold_operation(page, "evaluate")
    page.click(".evaluate button:text-is('Run')")
    while not held:
        page.wait_for_timeout(50)
    switches = page.locator(".evaluate .deviations input[data-deviation]")
    assert switches.count() > 0 and all(b.is_disabled() for b in switches.all())
    assert page.locator(".evaluate button:text-is('Cancel')").is_enabled()
    assert page.locator(".evaluate button:text-is('Run')").is_disabled()
    held[0].continue_()
    said = page.locator(".evaluate-setup > .msg")
    said.filter(has_text="not run").wait_for(timeout=WAIT_MS)
    rows = page.locator("table.results tbody tr")
    assert rows.count() == 3
    # Each row was filled by its check event before the report came.
    assert [r.get_attribute("data-live") for r in rows.all()] == ["yes"] * 3
    assert [r.get_attribute("data-check") for r in rows.all()] == [
        "MON-001",
        "ALARM-001",
        "LINK-001",
    ]
    watched.shot("der-evaluate-report")
    page.unroute("**/api")
    assert all(b.is_enabled() for b in switches.all())  # unlocked once it ended

    saved: dict[str, bytes] = {}
    for kind in ("json", "html", "junit.xml"):
        with page.expect_download() as info:
            page.click(f"button[data-download='{kind}']")
        path = tmp_path / info.value.suggested_filename
        info.value.save_as(path)
        saved[kind] = path.read_bytes()
    # Each download is the service's file, octet for octet: the console writes none.
    for kind, format in (("json", "json"), ("html", "html"), ("junit.xml", "junit")):
        answer = _ask(site, "report", {"format": format})
        assert saved[kind] == answer["content"].encode("utf-8"), kind
        assert answer["filename"].endswith(f".{kind}")
    report = json.loads(saved["json"])
    assert [r["id"] for r in report["results"]] == ["MON-001", "ALARM-001", "LINK-001"]
    assert report["allow_deviations"] is True
    assert report["device"]["port"] == site.der.port
    assert report["verdict"] in ("pass", "fail", "incomplete")
    assert 'id="verdict"' in saved["html"].decode()
    suite = ElementTree.fromstring(saved["junit.xml"])
    assert suite.tag == "testsuites" and suite.get("tests") == "3"
    cases = suite.findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == [f"{r['id']} {r['title']}" for r in report["results"]]
    s = report["summary"]
    assert int(suite.get("failures") or -1) == s["failed"]
    watched.assert_clean()


def _ask(site: Site, op: str, params: dict[str, object]) -> dict[str, Any]:
    """One operation over the service's HTTP API, as any client asks it."""
    body = json.dumps({"id": 1, "op": op, "outstation": "der", "params": params}).encode()
    request = urllib.request.Request(
        site.running.base_url + "/api", body, {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        envelope = json.loads(response.read())
    assert envelope["ok"], envelope
    result: dict[str, Any] = envelope["result"]
    return result


def test_a_check_s_frames_open_in_traffic(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "evaluate")
    page.wait_for_selector("input[data-check='MON-001']", state="attached", timeout=WAIT_MS)
    publish_check(site, (2, 5), notes=["published by the test"], requests=2)
    page.click("table.results tr[data-check='MON-001'] button:text-is('frames 2-5')")
    page.wait_for_selector(".pane-traffic:not([hidden])")
    assert page.inner_text(".pane-traffic .badge") == "frames 2-5 ✕"
    ids = page.locator(".vt-frames .vspacer .vrow:not([hidden]) span:first-child")
    page.wait_for_function(
        "() => document.querySelectorAll('.vt-frames .vspacer .vrow:not([hidden])').length === 4"
    )
    assert sorted(int(t) for t in ids.all_inner_texts()) == [2, 3, 4, 5]
    watched.assert_clean()


def test_a_check_heard_while_the_status_is_asked_is_kept(watched: Watched, site: Site) -> None:
    """A check event that comes while the page is asking for the evaluation's status is newer
    than the answer: its row stays when the answer comes (a loaded run saw the answer, "no
    evaluation yet", wipe the row a moment after it was drawn)."""
    page = open_console(watched, site, "der", "overview")
    held = hold_operation(page, "evaluation")
    page.click("#tab-evaluate")
    page.wait_for_selector("input[data-check='MON-001']", state="attached", timeout=WAIT_MS)
    publish_check(site, (3, 4), detail="heard while the status was asked")
    row = page.locator("table.results tr[data-check='MON-001'][data-live='yes']")
    row.wait_for(timeout=WAIT_MS)
    assert len(held) == 1  # the status is still on its way
    held[0].continue_()
    page.wait_for_function(
        "() => document.querySelector('.evaluate-results progress + span').textContent !== ''",
        timeout=WAIT_MS,
    )
    page.unroute("**/api")
    assert row.count() == 1  # the answer is drawn in the same task that wrote the text
    assert row.locator("td.detail").inner_text().startswith("heard while the status was asked")
    assert row.locator("button").inner_text() == "frames 3-4"
    watched.shot("der-evaluate-check-heard-while-loading")
    watched.assert_clean()
