"""The Evaluate tab as issue 18 asks, in a real browser: the choice of checks and settle
survives a reload (localStorage), the check list takes the page's height rather than
scrolling in its own box, a row's notes are not squeezed to a word a line, its frames are
not cut, an empty detail says what the check did, and the start time is local (the browser
put in Auckland's time zone, so UTC would show)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest

from tests.console.browser import Watched, watched_context
from tests.console.pages import WAIT_MS, open_console, publish_check
from tests.console.site import Site

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ZONE = "Pacific/Auckland"
NOTES = [
    "the first note is long enough to be wrapped over a few lines of the table cell, "
    "as a real check's notes are",
    "a second note",
]


@pytest.fixture
def far(browser: Browser) -> Iterator[Watched]:
    yield from watched_context(browser, timezone_id=ZONE)


def test_choice_is_remembered_and_rows_read_well(far: Watched, site: Site) -> None:
    page = open_console(far, site, "der", "evaluate")
    page.wait_for_selector("input[data-check='MON-001']", state="attached", timeout=WAIT_MS)
    for box in page.locator("input[data-set]").all():
        if box.is_enabled():
            box.uncheck()
    page.check("input[data-check='MON-001']")
    page.fill("input[name='settle']", "2")
    page.dispatch_event("input[name='settle']", "change")
    page.reload()
    assert far.failed == [f"GET {site.url}events: net::ERR_ABORTED"]  # the reload's doing
    far.failed.clear()
    page.wait_for_selector("input[data-check='MON-001']", state="attached", timeout=WAIT_MS)
    checked = page.eval_on_selector_all(
        "input[data-check]:checked", "boxes => boxes.map(b => b.dataset.check)"
    )
    assert checked == ["MON-001"]
    assert page.input_value("input[name='settle']") == "2"
    sizes = page.eval_on_selector(
        ".check-list", "e => [e.scrollHeight, e.clientHeight, getComputedStyle(e).overflowY]"
    )
    assert sizes[0] <= sizes[1] and sizes[2] == "visible", sizes

    publish_check(site, (2, 5), notes=NOTES, requests=3, detail="")
    row = page.locator("table.results tr[data-check='MON-001']")
    row.wait_for(timeout=WAIT_MS)
    assert "3 requests" in row.locator("td[data-detail]").inner_text()
    notes_width = row.locator("td.notes").evaluate("e => e.getBoundingClientRect().width")
    assert notes_width > 250, notes_width  # a word a line is some 60 px
    frames = row.locator("td.frames")
    assert frames.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert frames.evaluate("e => e.getBoundingClientRect().right <= window.innerWidth")
    far.shot("der-evaluate-layout")

    page.click(".evaluate button:text-is('Run')")
    said = page.locator(".evaluate-setup > .msg")
    said.filter(has_text="not run").wait_for(timeout=60_000)
    text = page.inner_text(".evaluate-results .inline .muted")
    started = re.search(r"started (.+)$", text)
    assert started, text
    shown = datetime.strptime(started.group(1), "%Y-%m-%d %H:%M:%S.%f")
    answer = page.evaluate(
        "async () => (await (await fetch('/api', {method: 'POST', headers: {'content-type':"
        " 'application/json'}, body: JSON.stringify({id: 1, op: 'evaluation', outstation:"
        " 'der', params: {}})})).json()).result.report.started"
    )
    utc = datetime.fromisoformat(answer.replace("Z", "+00:00"))
    local = utc.astimezone(ZoneInfo(ZONE)).replace(tzinfo=None)
    assert abs((shown - local).total_seconds()) < 1, (shown, local, utc)
    far.shot("der-evaluate-local-time")
    far.assert_clean()
