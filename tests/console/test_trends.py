"""Trends on the DER tab as issue 18 asks, in a real browser against the simulated DER: a
ticked trend makes the page poll (an integrity scan on the page's own schedule, said on the
page) so a change on the outstation reaches the chart with no scan asked by anyone else; the
charts share one time axis with clock ticks; a chart ticked from low in the table is shown
where the person is looking; unticking the last stops the polling."""

from __future__ import annotations

from typing import Any

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, der_call, open_console
from tests.console.site import Site
from tests.support.waiting import eventually


def _in_view(page: Any, selector: str) -> bool:
    return bool(
        page.eval_on_selector(
            selector,
            "e => { const r = e.getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }",
        )
    )


def test_trends_poll_share_an_axis_and_show_where_looked(watched: Watched, site: Site) -> None:
    nameplate = der_call(site, "der.read", group="Nameplate")["points"]
    rated = [p for p in nameplate if p["type"] == "ai" and isinstance(p["raw"], int) and p["raw"]]
    low, other = rated[-1], rated[-2]  # the last rows of the table: below the fold
    page = open_console(watched, site, "der", "der")
    low_row = page.locator(f".der-points tr[data-key='ai:{low['index']}']")
    low_row.wait_for(timeout=WAIT_MS)
    assert page.get_attribute("[data-polling]", "data-polling") == "off"
    low_row.scroll_into_view_if_needed()
    low_row.locator("input[type='checkbox']").check()
    chart = f".trends svg[data-trend-chart='ai:{low['index']}']"
    page.wait_for_selector(chart, timeout=WAIT_MS)
    # The page scrolls the new chart into view on its next frame: wait for that, not longer.
    assert eventually(lambda: _in_view(page, chart), within=5), "the new chart is off screen"
    assert _in_view(page, f".der-points tr[data-key='ai:{low['index']}']")
    assert page.get_attribute("[data-polling]", "data-polling") == "on"
    assert "every 2 s" in page.inner_text("[data-polling]")

    # The outstation's value changes; nobody but the page asks for a scan.
    raw = low["raw"] * 3
    device = site.der.device
    site.call(
        lambda: device.database.update("ai", low["index"], raw, now=site.der.clock.monotonic())
    )
    page.wait_for_function(
        "([key, raw]) => document.querySelector(`.der-points tr[data-key='${key}'] td:nth-child(3)`)"
        "?.title === `as transmitted: ${raw}`",
        arg=[f"ai:{low['index']}", raw],
        timeout=WAIT_MS,
    )
    assert watched.api_ops.count("scan") >= 1

    page.locator(f".der-points tr[data-key='ai:{other['index']}'] input[type='checkbox']").check()
    page.wait_for_selector(f".trends svg[data-trend-chart='ai:{other['index']}']")
    page.wait_for_timeout(2500)  # the axis runs on: a few seconds, so ticks are there
    ticks = page.eval_on_selector_all(
        ".trends svg.chart",
        "charts => charts.map(c => [...c.querySelectorAll('.time-tick')].map(t => t.dataset.ms))",
    )
    assert len(ticks) == 2 and ticks[0] == ticks[1] and len(ticks[0]) >= 1, ticks
    labels = page.eval_on_selector_all(".trends .time-tick", "ts => ts.map(t => t.textContent)")
    assert all(len(label.split(":")) == 3 for label in labels), labels
    watched.shot("der-trends-polling")

    for key in (low["index"], other["index"]):
        page.locator(f".der-points tr[data-key='ai:{key}'] input[type='checkbox']").uncheck()
    assert page.get_attribute("[data-polling]", "data-polling") == "off"
    page.wait_for_timeout(500)  # a scan already on its way may still answer
    scans = watched.api_ops.count("scan")
    page.wait_for_timeout(4500)
    assert watched.api_ops.count("scan") == scans  # stopped
    site.call(
        lambda: device.database.update(
            "ai", low["index"], low["raw"], now=site.der.clock.monotonic()
        )
    )
    watched.assert_clean()
