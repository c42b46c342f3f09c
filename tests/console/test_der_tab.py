"""The console's DER tab in a real browser against the simulated DER: readings in
engineering units, the function switch, a curve edited and read back, the Device Profile
compared and printed, the outstation described (der.describe: the observed document offered
as a download beside the compare, and compared clean), settings written and read back."""

from __future__ import annotations

import re
import time
from pathlib import Path

from lxml import etree

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, der_call, open_console
from tests.console.site import Site


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


def test_describe_offers_the_observed_document_and_compares_clean(
    watched: Watched, site: Site, tmp_path: Path
) -> None:
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='document']")
    page.click("text=Describe the outstation")
    said = page.locator(".der-document > .msg")
    said.filter(has_text="described").wait_for(timeout=WAIT_MS)
    assert re.fullmatch(r"described: \d+ bi, \d+ bo, .*; \d+ device attributes", said.inner_text())
    link = page.locator(".der-document a.download")
    assert link.inner_text() == "Download der-observed-device-profile.xml"
    with page.expect_download() as info:
        link.click()
    saved = tmp_path / "observed.xml"
    info.value.save_as(saved)
    root = etree.parse(str(saved)).getroot()
    reason = root.findtext(".//{*}revisionHistory/{*}reason") or ""
    assert reason.startswith("Observed by gridwire der.describe")
    page.click("text=Compare with the outstation")
    said.filter(has_text="declared").wait_for(timeout=WAIT_MS)
    assert re.fullmatch(r"(\d+) declared, \1 served: 0 absent, 0 undeclared", said.inner_text())
    assert page.locator(".der-document .muted").first.inner_text().startswith("observed:")
    watched.shot("der-der-describe")
    watched.assert_clean()


def test_der_settings_show_present_values_what_was_sent_and_the_mirror(
    watched: Watched, site: Site
) -> None:
    functions = der_call(site, "der.functions")["functions"]
    # A setting sent in tenths (multiplier 0.1) with units and a mirror input.
    function, setting = next(
        (f, s)
        for f in functions
        for s in f["settings"]
        if s["multiplier"] == 0.1 and s["units"] and s["mirror"] and s["minimum"] is not None
    )
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='functions']")
    card = page.locator(f".der-function[data-key='{function['key']}']")
    chevron = card.locator("summary .chevron")
    chevron.wait_for(timeout=WAIT_MS)
    closed = chevron.evaluate("e => getComputedStyle(e).transform")
    watched.shot("der-der-functions-closed")
    card.locator("summary strong").click()
    # The card opens (its chevron turns) and reads its settings' present values at once.
    assert chevron.evaluate("e => getComputedStyle(e).transform") != closed
    row = card.locator(f"tr[data-address='{setting['address']}']")
    present = row.locator("td.present")
    page.wait_for_function(
        "e => e.textContent !== '…'", arg=present.element_handle(), timeout=WAIT_MS
    )
    now = der_call(site, "der.read", names=[setting["address"]])["points"][0]
    assert present.inner_text() == f"{_number(now['value'])} {setting['units']}"
    low, high = _number(setting["minimum"]), _number(setting["maximum"])
    assert row.locator("td.range").inner_text() == f"{low} … {high} {setting['units']}"
    assert row.locator("td.verdict").inner_text().startswith(setting["mirror"])
    watched.shot("der-der-functions-open")

    # 1 (in the setting's units) is sent as 10 (tenths); the mirror reads 1 back.
    wanted = setting["minimum"] + 1
    row.locator("input").fill(_number(wanted))
    card.locator("button:text-is('Write and read back')").click()
    said = card.locator("form.settings > .buttons .msg")
    said.filter(has_text="written").wait_for(timeout=WAIT_MS)
    assert said.inner_text() == "1 setting written and verified"
    raw = round(wanted / 0.1)
    units = setting["units"]
    assert row.locator("td.sent").inner_text() == f"sent {raw} for {_number(wanted)} {units}"
    back = row.locator("td.verdict").inner_text()
    assert back == f"{setting['mirror']} {_number(wanted)} {units} (raw {raw}) ✓ matches" or (
        back.startswith(f"{setting['mirror']} {_number(wanted)} {units} (raw {raw})")
        and back.endswith("✓ matches")
    ), back
    page.wait_for_function(
        "([e, t]) => e.textContent === t",
        arg=[present.element_handle(), f"{_number(wanted)} {units}"],
        timeout=WAIT_MS,
    )
    watched.shot("der-der-settings-written")
    read = der_call(site, "der.read", names=[setting["address"], setting["mirror"]])["points"]
    assert [p["value"] for p in read] == [wanted, wanted]
    assert read[0]["raw"] == raw
    watched.assert_clean()


def test_der_functions_header_count_follows_an_enable(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='functions']")
    said = page.locator(".der > .der-part > div > .buttons .msg")
    said.filter(has_text="functions").wait_for(timeout=WAIT_MS)
    before = int(re.search(r"(\d+) enabled", said.inner_text()).group(1))  # type: ignore[union-attr]
    functions = der_call(site, "der.functions")["functions"]
    off = next(f for f in functions if not f["enabled"] and f["supported"])
    switch = page.locator(f"input[data-function='{off['key']}']")
    # The switch looks like one: a track beside an invisible checkbox.
    track = page.locator(f".der-function[data-key='{off['key']}'] .toggle-switch .track")
    assert track.bounding_box()["width"] > track.bounding_box()["height"]  # type: ignore[index]
    switch.check()
    said.filter(has_text=f"{before + 1} enabled").wait_for(timeout=WAIT_MS)
    watched.shot("der-der-functions-count-follows")
    switch.uncheck()
    said.filter(has_text=f"{before} enabled").wait_for(timeout=WAIT_MS)
    watched.assert_clean()
