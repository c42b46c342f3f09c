"""The console in a real browser (Debian's Chromium under Playwright) against the service
with the simulated DER and a plain outstation of 9,000 points (tests/console/site.py).

One browser and one service for the module; each test has a fresh browser context (its own
storage). Screenshots of every tab go to test-artifacts/console/ for a person to look at.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.dnp3.link import encode_frame
from gridwire.master.bus import BACKLOG_LIMIT
from tests.console.browser import VIEWPORT, Watched, launch
from tests.console.site import PLAIN_POINTS, Site, console_site
from tests.support.net import free_port
from tests.support.tshark import tshark_fields

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

TABS = ["overview", "points", "commands", "events", "traffic", "requests", "der", "evaluate", "log"]
TOKEN = "console-test-token"
WAIT_MS = 15_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with console_site(secured_token=TOKEN) as running:
        yield running


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)  # type: ignore[arg-type]
    watched = Watched(context.new_page())
    watched.attach()
    try:
        yield watched
    finally:
        context.close()


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
    assert re.search(r"\bflash-[ab]\b", changed.get_attribute("class") or "")  # it flashes
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


def test_traffic_decodes_a_frame_and_saves_a_pcap_tshark_reads(
    watched: Watched, site: Site, tmp_path: Path, tshark: None
) -> None:
    page = open_console(watched, site, "der", "commands")
    page.click("button[data-scan='class0']")
    page.locator(".command-cards .msg.ok").filter(has_text="READ complete").wait_for(
        timeout=WAIT_MS
    )
    page.click("#tab-traffic")
    response = page.locator(".vt-frames .vspacer .vrow:not([hidden])").filter(has_text="RESPONSE")
    response.first.click()
    detail = page.locator(".frame-detail")
    for layer in ("Link", "Transport", "Application", "Objects"):
        assert detail.locator("h4", has_text=re.compile(f"^{layer}$")).count() == 1, layer
    assert "header CRC" in detail.inner_text() and "good" in detail.inner_text()
    assert "129 RESPONSE" in detail.inner_text()
    for shade in ("link", "crc", "transport", "app", "objects"):
        assert detail.locator(f".octets .o.{shade}").count() > 0, shade
    octets = detail.locator(".octets .o").count()
    watched.shot("der-traffic-decoded")

    # The octets shown are the frame's, 05 64 first.
    assert detail.locator(".octets .o").nth(0).inner_text() == "05"
    assert detail.locator(".octets .o").nth(1).inner_text() == "64"
    assert octets > 10

    with page.expect_download() as download_info:
        page.click("text=Save as pcap")
    saved = tmp_path / "console.pcap"
    download_info.value.save_as(saved)
    page.locator(".pane-traffic .msg.ok").filter(has_text="saved").wait_for(timeout=WAIT_MS)
    frames = int(
        re.search(r"saved (\d+) frames", page.inner_text(".pane-traffic .msg.ok")).group(1)
    )  # type: ignore[union-attr]
    assert saved.read_bytes()[:4] in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4")
    rows = tshark_fields(saved, site.der.port, ["dnp3.src", "dnp3.dst", "dnp3.ctl.prifunc"], "dnp3")
    assert len(rows) == frames > 0
    assert {tuple(r[:2]) for r in rows} <= {("1", "1024"), ("1024", "1")}
    watched.assert_clean()


def test_the_frame_decoder_reads_what_the_master_summarizes(watched: Watched, site: Site) -> None:
    """For every frame the master kept, the page's decoder names the same application
    function and sequence as the master's own summary, and it never throws."""
    page = open_console(watched, site, "der", "traffic")
    checked = page.evaluate(
        """async () => {
            const { decodeFrame } = await import('./console/dnp3.js');
            const frames = window.gridwire.state.stations.get('der').frames;
            const out = [];
            for (const f of frames) {
                if (f.dropped) continue;
                const d = decodeFrame(f.hex);
                const app = d.layers.find((l) => l.name === 'Application');
                const fn = app?.fields.find(([k]) => k === 'function')?.[1] ?? null;
                const seq = app?.fields.find(([k]) => k === 'sequence')?.[1] ?? null;
                out.push([f.summary, fn, seq, d.problems]);
            }
            return out;
        }"""
    )
    assert checked
    for summary, function, sequence, problems in checked:
        assert problems == [], (summary, problems)
        match = re.search(r"\| AL (\w+) seq=(\d+)", summary)
        if match is None:
            continue  # a later segment: its application header came before
        assert function is not None and function.split(" ", 1)[1] == match.group(1), summary
        assert sequence == match.group(2), summary
    watched.assert_clean()


def test_the_frame_decoder_takes_any_octets(watched: Watched, site: Site) -> None:
    """Arbitrary octets, and frames cut or corrupted anywhere, are read without an exception
    and every octet gets a layer."""
    page = open_console(watched, site, "der", "log")
    import random

    rng = random.Random(1815)
    good = bytes.fromhex("056414c400040100e9b6c0c0013c02063c03063c04063c01068a51")
    samples = [good[:n] for n in range(len(good) + 1)]
    for _ in range(400):
        mutated = bytearray(good + bytes(rng.randrange(256) for _ in range(rng.randrange(300))))
        for _ in range(rng.randrange(6)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        samples.append(bytes(mutated))
        samples.append(bytes(rng.randrange(256) for _ in range(rng.randrange(40))))
    hexes = [base64.b16encode(s).decode().lower() for s in samples]
    result = page.evaluate(
        """async (hexes) => {
            const { decodeFrame } = await import('./console/dnp3.js');
            const failures = [];
            for (const hex of hexes) {
                try {
                    const d = decodeFrame(hex);
                    if (d.shade.length !== hex.length / 2 || d.shade.some((s) => !s)) failures.push([hex, 'shade']);
                } catch (error) {
                    failures.push([hex, String(error)]);
                }
            }
            return failures;
        }""",
        hexes,
    )
    assert result == []
    watched.assert_clean()


def test_after_lost_the_page_reads_its_state_again(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "plain", "events")
    # An event the page sees arrive...
    site.call(
        lambda: site.plain_device.database.update("bi", 5, False, now=site.plain.clock.monotonic())
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


def test_saved_requests_stay_in_the_browser_and_are_sent(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "plain", "requests")
    form = page.locator("form.request-form")
    form.locator("input[name='name']").fill("three analogs")
    form.locator("select[name='function']").select_option("READ")
    form.locator("input[name='body']").fill("1e 00 00 00 02")  # g30v0, indexes 0-2
    form.locator("button[type='submit']").click()
    page.wait_for_selector(".saved-request:has-text('three analogs')")
    page.reload()
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    assert watched.failed == [f"GET {site.url}events: net::ERR_ABORTED"]  # the reload's doing
    watched.failed.clear()
    page.click(".saved-request:has-text('three analogs')")
    assert page.locator("form.request-form input[name='body']").input_value() == "1e00000002"
    page.click("form.request-form button:text-is('Send')")
    page.locator("form.request-form .msg.ok").filter(has_text="READ complete").wait_for(
        timeout=WAIT_MS
    )
    assert "1e 00 00 00 02" in page.inner_text(".pane-requests .result")
    watched.shot("plain-requests-sent")
    # Every N seconds, until stopped.
    page.fill("input[aria-label='repeat every seconds']", "0.5")
    page.click("form.request-form button:text-is('Repeat')")
    page.wait_for_function(
        "() => /#([3-9]|\\d{2,}): READ complete/.test("
        "document.querySelector('form.request-form .msg').textContent)",
        timeout=WAIT_MS,
    )
    page.click("form.request-form button:text-is('Stop')")
    assert page.inner_text("form.request-form button[aria-pressed]") == "Repeat"
    watched.assert_clean()


def test_traffic_pauses_and_filters(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "traffic")
    count = page.locator(".pane-traffic .count")
    page.click(".pane-traffic button:text-is('Pause')")
    held = count.inner_text()
    site.run(site.running.master.scan("der", "class1"))
    page.wait_for_function(
        "n => window.gridwire.state.stations.get('der').frames.length > n",
        arg=int(held.split()[0]),
        timeout=WAIT_MS,
    )
    assert count.inner_text() == held and "paused" in held
    page.click(".pane-traffic button:text-is('Resume')")
    assert count.inner_text() != held
    page.fill(".pane-traffic input.filter", "CONFIRM")
    page.wait_for_function(
        """() => {
            const rows = [...document.querySelectorAll('.vt-frames .vspacer .vrow:not([hidden])')];
            return rows.length > 0 && rows.every((r) => r.textContent.includes('CONFIRM'));
        }""",
        timeout=WAIT_MS,
    )
    watched.assert_clean()


def der_call(site: Site, op: str, **params: Any) -> Any:
    """An operation on ``der`` through the service, as a script would ask it."""
    answer = httpx.post(f"{site.running.base_url}/api/{op}", json={"outstation": "der", **params})
    envelope = answer.json()
    assert envelope["ok"], envelope
    return envelope["result"]


def test_der_readings_are_in_engineering_units_and_follow_the_stream(
    watched: Watched, site: Site
) -> None:
    # A nameplate rating: the simulated DER's model does not rewrite it every second.
    nameplate = der_call(site, "der.read", group="Nameplate")["points"]
    point = next(
        p
        for p in nameplate
        if p["type"] == "ai"
        and isinstance(p["raw"], int)
        and p["raw"]
        and p["units"]
        and p["value"] != p["raw"]
    )
    page = open_console(watched, site, "der", "der")
    row = page.locator(f".der-points tr[data-key='ai:{point['index']}']")
    row.wait_for(timeout=WAIT_MS)
    assert row.locator("td").nth(2).inner_text() == _number(point["value"])
    assert row.locator("td").nth(3).inner_text() == point["units"]
    row.locator("input[type='checkbox']").check()
    page.wait_for_selector(".trends svg.chart path.series", state="attached")

    # The outstation's value doubles; a scan (by a script) brings it; the page, told by the
    # event stream, shows it scaled.
    simulated = site.der.device
    raw = point["raw"] * 2
    site.call(
        lambda: simulated.database.update("ai", point["index"], raw, now=site.der.clock.monotonic())
    )
    der_call(site, "scan", kind="integrity")
    expected = _number(point["value"] * 2)
    page.wait_for_function(
        "([key, text]) => document.querySelector(`.der-points tr[data-key='${key}'] td:nth-child(3)`)"
        "?.textContent === text",
        arg=[f"ai:{point['index']}", expected],
        timeout=WAIT_MS,
    )
    # The trend has both values the page saw: two levels, a step up at the change.
    path = page.get_attribute(".trends svg.chart path.series", "d") or ""
    levels = {float(y) for y in re.findall(r"(?:M[\d.]+,|V)([\d.]+)", path)}
    assert len(levels) == 2, path
    watched.shot("der-der-readings-live")
    watched.assert_clean()


def _number(value: float) -> str:
    """A number as the page writes it (seven significant digits, no trailing zeros)."""
    return repr(int(value)) if float(value).is_integer() else f"{float(f'{value:.7g}')!r}"


def test_der_enable_switch_flips_and_reads_enabled(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='functions']")
    switch = page.locator("input[data-function='volt-var']")
    switch.wait_for(timeout=WAIT_MS)
    assert not switch.is_checked()
    switch.check()
    card = page.locator(".der-function[data-key='volt-var']")
    card.locator(".msg.ok").filter(has_text="reads enabled").wait_for(timeout=WAIT_MS)
    assert card.locator(".msg.ok").inner_text() == "accepted; reads enabled"
    assert switch.is_checked()
    assert "enabled" in card.locator(".enabled-state").inner_text()
    watched.shot("der-der-functions")
    # On the outstation's side the function is enabled; the service reads the same.
    assert der_call(site, "der.read", names=["BO29"])["points"][0]["value"] is True
    functions = der_call(site, "der.functions")["functions"]
    assert next(f for f in functions if f["key"] == "volt-var")["enabled"] is True

    switch.uncheck()
    card.locator(".msg.ok").filter(has_text="reads not enabled").wait_for(timeout=WAIT_MS)
    functions = der_call(site, "der.functions")["functions"]
    assert next(f for f in functions if f["key"] == "volt-var")["enabled"] is False
    watched.assert_clean()


def test_a_curve_edited_in_the_editor_is_read_back_by_der_curve(
    watched: Watched, site: Site
) -> None:
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='curve']")
    page.wait_for_selector(".curve-chart circle.handle", timeout=WAIT_MS)
    before = der_call(site, "der.curve")
    editor = page.locator("form.curve-editor")
    # A value typed in the table...
    editor.locator("input[aria-label='point 1 Y']").fill("40")
    editor.locator("input[aria-label='point 1 Y']").press("Tab")
    # ...and a point dragged down on the plot.
    handle = page.locator(".curve-chart circle.handle").nth(3)
    box = handle.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + 12, steps=4)
    page.mouse.up()
    dragged = int(editor.locator("input[aria-label='point 4 Y']").input_value())
    assert dragged < before["points"][3][1]
    assert editor.locator("input[aria-label='point 4 X']").input_value() == str(
        before["points"][3][0]
    )
    editor.locator("button[type='submit']").click()
    said = editor.locator(".msg")
    said.filter(has_text="read back").wait_for(timeout=WAIT_MS)
    assert said.inner_text() == "every write accepted; read back matches ✓"
    watched.shot("der-der-curve-written")

    after = der_call(site, "der.curve")
    expected = [list(p) for p in before["points"]]
    expected[0][1] = 40
    expected[3][1] = dragged
    assert after["points"] == expected
    assert (after["type"], after["x_units"], after["y_units"]) == (
        before["type"],
        before["x_units"],
        before["y_units"],
    )
    watched.assert_clean()


def test_der_device_profile_compare_and_document(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='document']")
    page.click("text=Compare with the outstation")
    said = page.locator(".der-document > .msg")
    said.filter(has_text="declared").wait_for(timeout=WAIT_MS)
    assert re.fullmatch(r"(\d+) declared, \1 served: 0 absent, 0 undeclared", said.inner_text())
    page.click("text=Show the document")
    said.filter(has_text="sections").wait_for(timeout=WAIT_MS)
    article = page.locator("article.device-profile")
    assert "gridwire simulated IEEE 1815.2 DER" in article.locator("h2").inner_text()
    assert article.locator("table").count() > 3
    watched.shot("der-der-document")
    started = time.monotonic()
    page.emulate_media(media="print")
    assert page.locator(".side").is_hidden() and article.is_visible()
    assert time.monotonic() - started < 30
    watched.assert_clean()


def test_der_settings_are_written_and_read_back(watched: Watched, site: Site) -> None:
    functions = der_call(site, "der.functions")["functions"]
    volt_watt = next(f for f in functions if f["key"] == "volt-watt")
    setting = next(
        s
        for s in volt_watt["settings"]
        if s["states"] is None
        and s["minimum"] is not None
        and s["maximum"] is not None
        and s["maximum"] > s["minimum"] + 1
    )
    wanted = setting["minimum"] + 1
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='functions']")
    card = page.locator(".der-function[data-key='volt-watt']")
    card.locator("summary strong").click()
    card.locator(f"input[aria-label='{setting['label']}']").fill(_number(wanted))
    card.locator("button:text-is('Write and read back')").click()
    said = card.locator("form.settings .msg")
    said.filter(has_text="written").wait_for(timeout=WAIT_MS)
    assert said.inner_text() == "written and verified"
    assert card.locator("td.verdict", has_text="✓ matches").count() == 1
    watched.shot("der-der-settings-written")
    read = der_call(site, "der.read", names=[setting["address"]])["points"][0]
    assert read["value"] == wanted
    watched.assert_clean()


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


DECODE = """(hex) => {
    const d = window.decodeForTest(hex);
    return [d.shade.length, d.shade.every(Boolean), d.problems, d.layers.map((l) => l.name)];
}"""


@pytest.fixture(scope="module")
def decoder_page(browser: Browser, site: Site) -> Iterator[Page]:
    """One page for the decoder's property test, its decoder at hand."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(site.url + "#/der/log")
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    page.evaluate(
        "async () => { window.decodeForTest = (await import('./console/dnp3.js')).decodeFrame; }"
    )
    yield page
    context.close()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    user_data=st.binary(min_size=1, max_size=250),
    primary=st.booleans(),
    function=st.integers(0, 15),
)
def test_the_frame_decoder_reads_any_well_framed_user_data(
    decoder_page: Page, user_data: bytes, primary: bool, function: int
) -> None:
    """A frame with good checksums around any user data (so the transport, application
    and object readers see everything hypothesis makes) is read without an exception, its
    checksums found good, and every octet given a layer."""
    frame = encode_frame(function, 1024, 1, user_data, from_master=True, primary=primary)
    length, shaded, problems, layers = decoder_page.evaluate(DECODE, frame.hex())
    assert length == len(frame) and shaded
    assert not any("CRC" in p for p in problems), problems
    assert layers[:2] == ["Link", "Transport"]


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
    held: list[Route] = []

    def hold(route: Route) -> None:
        body = route.request.post_data_json
        if isinstance(body, dict) and body.get("op") == "evaluate":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api", hold)
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

    saved = {}
    for kind in ("json", "html", "junit.xml"):
        with page.expect_download() as info:
            page.click(f"button[data-download='{kind}']")
        path = tmp_path / info.value.suggested_filename
        info.value.save_as(path)
        saved[kind] = path.read_text()
    report = json.loads(saved["json"])
    assert [r["id"] for r in report["results"]] == ["MON-001", "ALARM-001", "LINK-001"]
    assert report["allow_deviations"] is True
    assert "<h1>Evaluation of der</h1>" in saved["html"]
    suite = ElementTree.fromstring(saved["junit.xml"])
    assert suite.tag == "testsuite" and suite.get("tests") == "3"
    assert len(suite.findall("testcase")) == 3
    s = report["summary"]
    assert int(suite.get("failures") or -1) == s["failed"]
    assert int(suite.get("skipped") or -1) == s["not_applicable"] + s["not_run"]
    watched.assert_clean()


def test_a_check_s_frames_open_in_traffic(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "evaluate")
    page.wait_for_selector("input[data-check='MON-001']", state="attached", timeout=WAIT_MS)
    result = {
        "id": "MON-001",
        "title": "Monitoring",
        "verdict": "passed",
        "detail": "",
        "notes": ["published by the test"],
        "requests": 2,
        "seconds": 0.1,
        "frames": [2, 5],
        "packets": None,
    }
    site.call(
        lambda: site.running.master.bus.publish("check", {"outstation": "der", "result": result})
    )
    page.click("table.results tr[data-check='MON-001'] button:text-is('frames 2-5')")
    page.wait_for_selector(".pane-traffic:not([hidden])")
    assert page.inner_text(".pane-traffic .badge") == "frames 2-5 ✕"
    ids = page.locator(".vt-frames .vspacer .vrow:not([hidden]) span:first-child")
    page.wait_for_function(
        "() => document.querySelectorAll('.vt-frames .vspacer .vrow:not([hidden])').length === 4"
    )
    assert sorted(int(t) for t in ids.all_inner_texts()) == [2, 3, 4, 5]
    watched.assert_clean()
