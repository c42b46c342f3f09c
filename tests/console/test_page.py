"""The console in a real browser (Debian's Chromium under Playwright) against the service
with the simulated DER and a plain outstation of 9,000 points (tests/console/site.py): every
tab, live points, commands, the token, a lost stream, outstations added and removed, and
deviations. The Traffic, DER and Evaluate tabs have modules of their own.

One browser and one service per module (tests/console/conftest.py); each test has a fresh
browser context (its own storage). Screenshots of every tab go to test-artifacts/console/ for
a person to look at.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from gridwire.errors import ConnectionFailed
from gridwire.master import OutstationSettings
from gridwire.master.bus import BACKLOG_LIMIT
from tests.console.browser import Watched
from tests.console.pages import TABS, TOKEN, WAIT_MS, open_console, pane
from tests.console.site import PLAIN_POINTS, Site
from tests.support.net import free_port

if TYPE_CHECKING:
    from playwright.sync_api import APIResponse, Page, Route


@pytest.mark.parametrize("outstation", ["der", "plain"])
def test_every_tab_renders_without_errors(watched: Watched, site: Site, outstation: str) -> None:
    page = open_console(watched, site, outstation)
    for tab in TABS:
        page.click(f"#tab-{tab}")
        page.wait_for_selector(f".pane-{tab}:not([hidden])")
        assert page.get_attribute(f"#tab-{tab}", "aria-selected") == "true"
        assert pane(page, tab).inner_text().strip(), f"{tab} shows nothing"
        page.wait_for_timeout(150)  # let live rows settle before the picture
        watched.shot(f"{outstation}-{tab}")
    assert page.inner_text(".top .title") == outstation
    watched.assert_clean()


def test_points_show_values_that_change_live(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "plain", "points")
    total = sum(PLAIN_POINTS.values())
    page.wait_for_selector(f"text={total} shown")
    # 9,000 points, a screenful of row elements.
    rows = page.locator(".vt-points .vspacer .vrow:not([hidden])").count()
    assert 10 < rows < 120, rows
    page.click(".segments button[data-type='ai']")
    page.fill(".pane-points input.filter", "17")
    page.wait_for_selector("text=1 shown")
    value = page.locator(".vt-points .vspacer .vrow:not([hidden]) span:nth-child(4)")
    assert value.inner_text() == "17"

    site.call(
        lambda: site.plain_device.database.update("ai", 17, 4321, now=site.plain.clock.monotonic())
    )
    site.call(site.plain._wake.set)
    page.wait_for_function(
        "() => document.querySelector('.vt-points .vspacer .vrow:not([hidden]) span:nth-child(4)')"
        ".textContent === '4321'",
        timeout=WAIT_MS,
    )
    changed = page.locator(".vt-points .vspacer .vrow:not([hidden])")
    assert "event" in changed.inner_text()
    assert changed.get_attribute("data-flash") in ("1", "2", "3")  # it flashes
    page.click("#tab-events")
    page.wait_for_selector(".vt-events .vrow:has-text('unsolicited'):has-text('4321')")
    watched.shot("plain-points-live")
    watched.assert_clean()


def test_operate_from_commands_reaches_the_outstation(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "plain", "points")
    # The Operate shortcut on an output's row opens Commands with the output filled in.
    page.click(".segments button[data-type='ao']")
    page.fill(".pane-points input.filter", "7")
    page.wait_for_selector("text=1 shown")
    page.click(".vt-points .vspacer .vrow:not([hidden]) button[data-action='operate']")
    page.wait_for_selector(".pane-commands:not([hidden])")
    form = page.locator("form.operate")
    assert form.locator("select[name='type']").input_value() == "ao"
    assert form.locator("input[name='index']").input_value() == "7"
    form.locator("input[name='value']").fill("4242")
    form.locator("select[name='mode']").select_option("select")
    before = len(site.plain_device.log)
    form.locator("button[type='submit']").click()
    said = form.locator(".msg")
    said.filter(has_text="read back").wait_for(timeout=WAIT_MS)
    assert said.inner_text() == "accepted: SUCCESS; read back 4242"
    watched.shot("plain-commands-operate")

    # On the outstation's side: a select, then an operate, of ao 7 to 4242; nothing else.
    received = site.call(lambda: list(site.plain_device.log[before:]))
    assert [(mode, command.index, command.value) for mode, command in received] == [
        ("select", 7, 4242),
        ("operate", 7, 4242),
    ]
    assert site.call(lambda: site.plain_device.database.get("ao", 7).value) == 4242
    watched.assert_clean()


def test_a_missing_or_refused_token_is_asked_for(watched: Watched, site: Site) -> None:
    assert site.secured is not None
    page = watched.page
    page.goto(site.secured.base_url + "/")
    dialog = page.locator("#token-dialog")
    dialog.wait_for(timeout=WAIT_MS)
    dialog.locator("input[name='token']").fill("not-the-token")
    dialog.locator("button[type='submit']").click()
    page.locator("#token-dialog .msg.error").filter(has_text="refused").wait_for(timeout=WAIT_MS)
    page.locator("#token-dialog input[name='token']").fill(TOKEN)
    page.locator("#token-dialog button[type='submit']").click()
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    assert page.locator("#token-dialog").count() == 0
    assert "none yet" in page.inner_text(".outstations")
    watched.shot("token-after-prompt")
    # Only the wrong token was refused.
    assert all("HTTP 401" in f for f in watched.failed), watched.failed
    assert not watched.errors or all("401" in e for e in watched.errors), watched.errors

    # Given in the address, the token is kept for the session and leaves the address bar.
    second = page.context.new_page()
    second.goto(site.secured.base_url + f"/?token={TOKEN}#/x/log")
    second.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    assert "token" not in second.url
    assert second.evaluate("sessionStorage.getItem('gridwire.token')") == TOKEN
    assert second.locator("#token-dialog").count() == 0


def test_after_lost_the_page_reads_its_state_again(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "plain", "events")
    # An event the page sees arrive (bi 5 starts off, site.py: on is a change)...
    site.call(
        lambda: site.plain_device.database.update("bi", 5, True, now=site.plain.clock.monotonic())
    )
    site.call(site.plain._wake.set)
    page.wait_for_function(
        "() => window.gridwire.state.stations.get('plain').events.length > 0", timeout=WAIT_MS
    )
    watched.api_ops.clear()

    # ...then the master forgets its events (no event says so) and the page falls more than
    # the backlog behind: it is told `lost`, and reads everything again.
    def flood() -> None:
        site.running.master.clear("plain", "events")
        for _ in range(BACKLOG_LIMIT + 1):
            site.running.master.bus.publish("outstations", {})

    site.call(flood)
    page.wait_for_function(
        "() => window.gridwire.state.log.some((e) => e.text.includes('updates dropped'))",
        timeout=WAIT_MS,
    )
    page.wait_for_function(
        "() => window.gridwire.state.stations.get('plain').events.length === 0 &&"
        " window.gridwire.state.stations.get('plain').loaded",
        timeout=WAIT_MS,
    )
    assert {"status", "values", "events", "trace"} <= set(watched.api_ops), watched.api_ops
    page.click("#tab-log")
    page.wait_for_selector(f".vt-log .vrow:has-text('{BACKLOG_LIMIT} updates dropped')")
    watched.shot("plain-log-after-lost")
    watched.assert_clean()


def test_connection_changes_show_live_and_status_is_not_polled(
    watched: Watched, site: Site
) -> None:
    page = open_console(watched, site, "der", "overview")
    watched.api_ops.clear()
    page.wait_for_timeout(3000)
    assert "status" not in watched.api_ops, "status was asked with nothing changed"
    lamp = page.locator(".outstation[data-name='plain'] .lamp")
    assert "on" in (lamp.get_attribute("class") or "")

    site.run(site.running.master.disconnect("plain"))
    page.wait_for_selector(".outstation[data-name='plain'] .lamp.off", timeout=WAIT_MS)
    assert "status" in watched.api_ops
    site.run(site.running.master.connect("plain"))
    page.wait_for_selector(".outstation[data-name='plain'] .lamp.on", timeout=WAIT_MS)
    watched.assert_clean()


def test_an_outstation_added_and_removed_from_the_page(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "overview")
    form = page.locator("form.add-form")
    form.locator("input[name='name']").fill("nobody")
    form.locator("input[name='port']").fill(str(free_port()))
    form.locator("button[type='submit']").click()
    # Nothing listens there: the error shows in the form, and the outstation stays added.
    form.locator(".msg.error").filter(has_text="connection").wait_for(timeout=WAIT_MS)
    page.wait_for_selector(".outstation[data-name='nobody'] .lamp.off", timeout=WAIT_MS)
    watched.shot("add-form-error")
    page.click(".outstation[data-name='nobody']")
    page.wait_for_selector(".top .title:text-is('nobody')")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".pane-overview button[data-op='remove']")
    page.wait_for_selector(".outstation[data-name='nobody']", state="detached", timeout=WAIT_MS)
    assert watched.failed and all("HTTP 503" in f for f in watched.failed), watched.failed
    assert not [e for e in watched.errors if "503" not in e], watched.errors


def test_every_command_card_answers(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "plain", "commands")
    cards = page.locator(".pane-commands .command-cards")

    def answered(card: str, button: str) -> str:
        section = cards.locator("section.card", has=page.locator(f"h3:text-is('{card}')"))
        section.locator(f"button:text-is('{button}')").click()
        said = section.locator(".msg").first
        page.wait_for_function(
            "el => el.className.includes('ok') || el.className.includes('error')",
            arg=said.element_handle(),
            timeout=WAIT_MS,
        )
        assert "ok" in (said.get_attribute("class") or ""), f"{card} {button}: {said.inner_text()}"
        return said.inner_text()

    for kind in ("integrity", "events", "class0", "class1", "class2", "class3", "outputs"):
        assert "READ complete" in answered("Scan", kind)
    assert "integrity every 10 s" in answered("Repeat", "Start")
    assert answered("Repeat", "Stop all") == "no scan on a schedule"
    assert "READ complete" in answered("Read", "Read")
    assert "written true" in answered("Time", "Synchronize")
    page.locator("select[aria-label='procedure']").select_option("non_lan")
    assert "written true" in answered("Time", "Synchronize")
    assert "WRITE complete" in answered("Time", "Write time")
    assert "IMMED_FREEZE complete" in answered("Freeze", "Freeze counters")
    assert "DISABLE_UNSOLICITED complete" in answered("Unsolicited", "Disable")
    assert "ENABLE_UNSOLICITED complete" in answered("Unsolicited", "Enable")
    page.locator("input[aria-label='hex body']").fill("3c0206")
    assert "READ complete" in answered("Request by function code", "Send")
    # The result card shows the last exchange: its request as sent.
    assert "c" in page.inner_text(".pane-commands .result .hex-line")
    watched.shot("plain-commands-all")
    # A body that is not hexadecimal is refused where it was typed, and nothing is sent.
    page.locator("input[aria-label='hex body']").fill("3c0")
    section = cards.locator(
        "section.card", has=page.locator("h3:text-is('Request by function code')")
    )
    section.locator("button:text-is('Send')").click()
    assert "hexadecimal" in section.locator(".msg.error").inner_text()
    watched.assert_clean()


def test_deviations_show_on_every_tab_while_any_is_on(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "commands")
    banner = page.locator(".banner")
    assert banner.is_hidden()
    page.locator("input[data-deviation='withhold_unsolicited_confirmation']").check()
    banner.filter(has_text="withhold_unsolicited_confirmation").wait_for(timeout=WAIT_MS)
    for tab in TABS:
        page.click(f"#tab-{tab}")
        assert banner.is_visible(), tab
    watched.shot("der-deviation-banner")
    assert site.running.master.status().outstations[0].deviations
    page.click("#tab-commands")
    page.click(".deviations button:text-is('All off')")
    banner.wait_for(state="hidden", timeout=WAIT_MS)
    assert not any(o.deviations for o in site.running.master.status().outstations)
    watched.assert_clean()


def test_events_are_cleared_here_and_on_the_master(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "plain", "events")
    site.call(
        lambda: site.plain_device.database.update("bi", 7, True, now=site.plain.clock.monotonic())
    )
    site.call(site.plain._wake.set)
    page.wait_for_selector(".vt-events .vrow:has-text('unsolicited')", timeout=WAIT_MS)
    page.click(".pane-events button:text-is('Clear')")
    page.locator(".pane-events .msg.ok").filter(has_text="events forgotten").wait_for()
    assert page.inner_text(".pane-events .count").startswith("0 of 0")
    assert site.call(lambda: site.running.master.events("plain")) == []
    watched.assert_clean()


ROW_IN_VIEW = ".vt-points .vspacer .vrow:not([hidden])"
SHOWN = ".pane-points .toolbar .count"


def _set_ai(site: Site, value: Callable[[int], int], flags: dict[int, int] | None = None) -> None:
    """Every one of plain's analog inputs to ``value(index)`` (``flags`` for some), reported."""

    def change() -> None:
        db, now = site.plain_device.database, site.plain.clock.monotonic()
        for index in range(PLAIN_POINTS["ai"]):
            db.update("ai", index, value(index), flags=(flags or {}).get(index), now=now)

    site.call(change)
    site.call(site.plain._wake.set)


def _value_at(page: Page, position: int) -> str:
    return str(
        page.evaluate(
            "n => document.querySelector(`.vt-points .vrow[data-index='${n}']:not([hidden])`)"
            "?.children[3].textContent ?? null",
            position,
        )
    )


def test_points_table_keeps_a_screenful_of_rows_while_thousands_change(
    watched: Watched, site: Site
) -> None:
    page = open_console(watched, site, "plain", "points")
    total = sum(PLAIN_POINTS.values())
    page.wait_for_selector(f"text={total} shown")
    # Row 4500 of the sorted table is ai 500 (bi 2500, bo 500, counter 1000 come first).
    page.eval_on_selector(".vt-points .vviewport", "v => { v.scrollTop = 4500 * 24; }")
    page.wait_for_function("() => document.querySelector(\".vt-points .vrow[data-index='4500']\")")
    assert _value_at(page, 4500) == "500"
    try:
        # All 4,000 analog inputs change at once: the row in view shows its new value, and
        # the table still holds only a screenful of row elements, not one per point.
        _set_ai(site, lambda index: index + 7000)
        page.wait_for_function(
            "() => document.querySelector(\".vt-points .vrow[data-index='4500']\")"
            "?.children[3].textContent === '7500'",
            timeout=WAIT_MS,
        )
        rows = page.locator(".vt-points .vspacer .vrow").count()
        assert 10 < rows < 120, rows
        row = page.locator(".vt-points .vrow[data-index='4500']")
        # It flashes, in steps the page sets (a changed row is painted 3 times, not every
        # frame as under a CSS animation), and the flash ends without another change.
        assert row.get_attribute("data-flash") in ("1", "2", "3")
        assert row.evaluate("r => getComputedStyle(r).animationName") == "none"
        watched.shot("plain-points-9000-changing")
        page.wait_for_function(
            "() => !document.querySelector(\".vt-points .vrow[data-index='4500']\").dataset.flash",
            timeout=WAIT_MS,
        )

        # A filter on flags follows a change of flags though no point came or went.
        page.click(".segments button[data-type='ai']")
        page.fill(".pane-points input.filter", "!ONLINE")
        page.wait_for_selector(f"{SHOWN}:text-is('0 shown')")
        _set_ai(site, lambda index: index + 7000, flags={600: 0x00})
        page.wait_for_selector(f"{SHOWN}:text-is('1 shown')", timeout=WAIT_MS)
        assert page.locator(ROW_IN_VIEW).count() == 1
        assert page.inner_text(f"{ROW_IN_VIEW} span:nth-child(2)") == "600"
    finally:
        # Back as site.py made them, seen by the master before the next test reads values.
        _set_ai(site, lambda index: index, flags={600: 0x01})
        page.click(".segments button[data-type='ai']")
        page.fill(".pane-points input.filter", "600")
        page.wait_for_function(
            f"() => document.querySelector('{ROW_IN_VIEW} span:nth-child(4)')?.textContent"
            " === '600'",
            timeout=WAIT_MS,
        )
    watched.assert_clean()


def test_a_fleet_past_one_status_page_is_listed_whole(watched: Watched, site: Site) -> None:
    """``status`` answers 500 outstations a page (DESIGN D149): the page takes every page, so
    the 520th outstation is listed, and picking it works (none past the first page is lost)."""
    closed = free_port()  # nothing listens: each is added, fails to connect, stays, waits an hour
    names = [f"fleet{n:03d}" for n in range(520)]

    async def add_all() -> None:
        for name in names:
            settings = OutstationSettings(
                name=name, host="127.0.0.1", port=closed, reconnect=3600, manual=True
            )
            with contextlib.suppress(ConnectionFailed):
                await site.running.master.add(settings)

    async def remove_all() -> None:
        for name in names:
            await site.running.master.remove(name)

    site.run(add_all(), timeout=120)
    try:
        page = open_console(watched, site, "plain", "overview")
        last = page.locator(".side button.outstation[data-name='fleet519']")
        last.wait_for(timeout=WAIT_MS)
        assert page.locator(".side button.outstation").count() == 522  # der, plain and 520
        last.click()
        page.wait_for_function("location.hash.includes('fleet519')", timeout=WAIT_MS)
        watched.shot("fleet-past-one-status-page")
    finally:
        site.run(remove_all(), timeout=120)


def test_an_update_heard_while_the_page_reads_the_values_stays(
    watched: Watched, site: Site
) -> None:
    """The page reads an outstation's values and frames when it opens it; an update the
    stream brings while those answers are on their way is newer than them and stays (a loaded
    run saw the first poll of ``plain`` come that way and be wiped by the values answered
    before it: "9000 shown" never came)."""
    page = watched.page
    held: list[tuple[Route, APIResponse]] = []

    def answered_now_given_later(route: Route) -> None:
        body = route.request.post_data_json
        if isinstance(body, dict) and body.get("op") in ("values", "trace"):
            held.append((route, route.fetch()))
        else:
            route.continue_()

    page.route("**/api", answered_now_given_later)
    page.goto(f"{site.url}#/plain/points")
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    while len(held) < 2:
        page.wait_for_timeout(50)
    site.call(
        lambda: site.plain_device.database.update("ai", 18, 5818, now=site.plain.clock.monotonic())
    )
    site.call(site.plain._wake.set)
    page.wait_for_function(
        "() => window.gridwire.state.stations.get('plain').points.get('ai:18')?.value === 5818",
        timeout=WAIT_MS,
    )
    last = site.call(lambda: site.running.master.trace("plain")[-1].id)
    for route, response in held:
        route.fulfill(response=response)
    page.wait_for_function(
        "() => window.gridwire.state.stations.get('plain').loaded", timeout=WAIT_MS
    )
    page.unroute("**/api")
    shown = page.evaluate("() => window.gridwire.state.stations.get('plain').points.get('ai:18')")
    assert shown["value"] == 5818, shown
    # Its event is listed once, whether the events answer held it or not.
    events = page.evaluate(
        "() => window.gridwire.state.stations.get('plain').events"
        ".filter((e) => e.type === 'ai' && e.index === 18 && e.value === 5818).length"
    )
    assert events == 1
    # The frames heard meanwhile follow the trace's, none missing.
    ids = page.evaluate("() => window.gridwire.state.stations.get('plain').frames.map((f) => f.id)")
    assert ids[-1] >= last and ids == list(range(ids[0], ids[-1] + 1)), (ids[-5:], last)
    page.click(".segments button[data-type='ai']")
    page.fill(".pane-points input.filter", "18")
    page.wait_for_selector("text=1 shown")
    value = page.locator(".vt-points .vspacer .vrow:not([hidden]) span:nth-child(4)")
    assert value.inner_text() == "5818"
    watched.shot("plain-points-update-heard-while-reading")
    watched.assert_clean()
