"""The DER views a test engineer reads values in: Points and Events with the engineering
value in its units beside the raw (checked against der.read, the service's own scaling) and
a state named once; the curve editor on a disabled curve (no nonsense axes), setting the
type and units, and counting the points it wrote (checked against der.curve); the Device
Profile views saying what to do on the page when no document was given."""

from __future__ import annotations

import httpx

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, der_call, open_console
from tests.console.site import Site

ROWS = ".vt-points .vspacer .vrow:not([hidden])"


def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else f"{float(f'{value:.7g}')!r}"


def test_points_show_engineering_values_beside_the_raw(watched: Watched, site: Site) -> None:
    nameplate = der_call(site, "der.read", group="Nameplate")["points"]
    analog = next(
        p
        for p in nameplate
        if p["type"] == "ai" and isinstance(p["raw"], int) and p["units"] and p["value"] != p["raw"]
    )
    states = der_call(site, "der.read", group="Status")["points"]
    binary = next(p for p in states if p["type"] == "bi" and p["state"])
    page = open_console(watched, site, "der", "points")
    der_call(site, "scan", kind="integrity")
    page.click(".segments button[data-type='ai']")
    page.fill(".pane-points input.filter", str(analog["index"]))
    row = page.locator(ROWS).filter(
        has=page.locator(f"span:nth-child(2):text-is('{analog['index']}')")
    )
    value = row.locator("span.value")
    page.wait_for_function(
        "([e, t]) => e.textContent === t",
        arg=[value.element_handle(), f"{_number(analog['value'])} {analog['units']}"],
        timeout=WAIT_MS,
    )
    assert row.locator("span.raw").inner_text() == str(analog["raw"])
    watched.shot("der-points-engineering")

    page.click(".segments button[data-type='bi']")
    page.fill(".pane-points input.filter", str(binary["index"]))
    row = page.locator(ROWS).filter(
        has=page.locator(f"span:nth-child(2):text-is('{binary['index']}')")
    )
    row.locator("span.value").filter(has_text=binary["state"]).wait_for(timeout=WAIT_MS)
    # The state's name once; the bit in its own narrow column.
    assert row.locator("span.value").inner_text() == binary["state"]
    assert row.locator("span.raw").inner_text() == str(int(binary["raw"]))
    watched.shot("der-points-binary-state")
    # The filter's placeholder fits its box (measured in the box's own font).
    room = page.evaluate(
        """() => {
            const input = document.querySelector('.pane-points input.filter');
            const style = getComputedStyle(input);
            const ctx = document.createElement('canvas').getContext('2d');
            ctx.font = `${style.fontSize} ${style.fontFamily}`;
            const inner = input.clientWidth - parseFloat(style.paddingLeft)
                - parseFloat(style.paddingRight);
            return inner - ctx.measureText(input.placeholder).width;
        }"""
    )
    assert room > 0, room
    watched.assert_clean()


def test_events_show_engineering_values_and_the_tab_counts_them(
    watched: Watched, site: Site
) -> None:
    page = open_console(watched, site, "der", "events")
    functions = der_call(site, "der.functions")["functions"]
    setting = next(
        s
        for f in functions
        for s in f["settings"]
        if s["multiplier"] == 0.1 and s["units"] and s["mirror"] and s["minimum"] is not None
    )
    wanted = setting["minimum"] + 3
    der_call(site, "der.write", points={setting["address"]: wanted})
    der_call(site, "scan", kind="events")
    mirror = der_call(site, "der.read", names=[setting["mirror"]])["points"][0]
    index = mirror["index"]
    row = page.locator(".vt-events .vspacer .vrow:not([hidden])").filter(
        has=page.locator(f"span:nth-child(3):text-is('ai') + span:text-is('{index}')")
    )
    row.first.wait_for(timeout=WAIT_MS)
    assert row.first.locator("span.value").inner_text() == f"{_number(wanted)} {setting['units']}"
    assert row.first.locator("span.raw").inner_text() == str(mirror["raw"])
    # The Events tab says how many events the page holds.
    held = page.evaluate("() => window.gridwire.state.stations.get('der').events.length")
    page.wait_for_function(
        "n => document.querySelector('#tab-events .tab-count').textContent === String(n)",
        arg=held,
        timeout=WAIT_MS,
    )
    frames = page.evaluate("() => window.gridwire.state.stations.get('der').frames.length")
    assert int(page.inner_text("#tab-traffic .tab-count")) >= frames > 0
    assert page.inner_text(".top .badge") == "control allowed"
    watched.shot("der-events-engineering")
    watched.assert_clean()


def test_a_disabled_curve_is_set_up_in_the_editor_and_counted(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='curve']")
    page.wait_for_selector(".curve-chart", timeout=WAIT_MS)
    # Curve 4 of the simulated DER is disabled (type 0) and holds no points.
    page.fill("input[aria-label='curve number']", "4")
    page.click("button:text-is('Select and read')")
    top = page.locator(".der-part .inline > .msg")
    top.filter(has_text="curve 4").wait_for(timeout=WAIT_MS)
    assert top.inner_text() == "curve 4: 0 points"
    chart = page.locator(".curve-chart")
    assert "Curve disabled" not in chart.text_content()
    assert chart.locator("text.tick").count() == 0
    assert "disabled and holds no points" in chart.text_content()
    watched.shot("der-curve-disabled")

    editor = page.locator("form.curve-editor")
    editor.locator("select[name='type']").select_option("2")
    editor.locator("select[name='x_units']").select_option("129")
    editor.locator("select[name='y_units']").select_option("2")
    wanted = [[95, 30], [100, 0], [105, -30]]
    for _ in wanted:
        editor.locator("button:text-is('Add point')").click()
    for i, (x, y) in enumerate(wanted, start=1):
        for axis, v in (("X", x), ("Y", y)):
            editor.locator(f"input[aria-label='point {i} {axis}']").fill(str(v))
            editor.locator(f"input[aria-label='point {i} {axis}']").press("Tab")
    editor.locator("button[type='submit']").click()
    said = editor.locator(".msg")
    said.filter(has_text="read back").wait_for(timeout=WAIT_MS)
    assert said.inner_text() == "every write accepted; read back matches ✓"
    assert top.inner_text() == "curve 4: 3 points"
    assert "3 points" in page.inner_text(".curve-facts")
    ticks = [t.text_content() for t in chart.locator("text.tick").all()]
    assert len(ticks) == len(set(ticks)) > 2, ticks
    names = [t.text_content() for t in chart.locator("text.axis-name").all()]
    watched.shot("der-curve-written-with-type")
    curve = der_call(site, "der.curve")
    assert (curve["number"], curve["type"], curve["x_units"], curve["y_units"]) == (4, 2, 129, 2)
    assert curve["points"] == wanted
    assert names == [curve["x_units_name"], curve["y_units_name"]]
    watched.assert_clean()


def test_operate_says_raw_or_engineering_and_selects_first(watched: Watched, site: Site) -> None:
    functions = der_call(site, "der.functions")["functions"]
    setting = next(
        s
        for f in functions
        for s in f["settings"]
        if s["multiplier"] == 0.1 and s["units"] and s["minimum"] is not None
    )
    index, units = setting["index"], setting["units"]
    page = open_console(watched, site, "der", "commands")
    form = page.locator("form.operate")
    assert form.locator("select[name='mode']").input_value() == "select"
    form.locator("select[name='type']").select_option("ao")
    form.locator("input[name='index']").fill(str(index))
    form.locator("input[name='value']").fill("4")
    form.locator("select[name='scale']").select_option("engineering")
    sends = form.locator(".sends")
    assert sends.inner_text() == f"{setting['label']}: 4 {units} is sent as 40"
    watched.shot("der-commands-operate-engineering")
    form.locator("button[type='submit']").click()
    said = form.locator(".msg")
    said.filter(has_text="read back").wait_for(timeout=WAIT_MS)
    assert said.inner_text().startswith("accepted: SUCCESS")
    read = der_call(site, "der.read", names=[setting["address"]])["points"][0]
    assert (read["raw"], read["value"]) == (40, 4)

    # As transmitted: 50 is sent as 50, which the profile reads as 5 %.
    form.locator("select[name='scale']").select_option("raw")
    form.locator("input[name='value']").fill("50")
    assert sends.inner_text() == f"{setting['label']}: sends 50, which is 5 {units}"
    form.locator("button[type='submit']").click()
    said.filter(has_text=f"read back 5 {units} (raw 50)").wait_for(timeout=WAIT_MS)
    read = der_call(site, "der.read", names=[setting["address"]])["points"][0]
    assert (read["raw"], read["value"]) == (50, 5)
    # The answer's objects in the result column are in units too, the raw beside them.
    result = page.locator(".pane-commands .result td.num", has_text=f"5 {units}")
    assert "raw 50" in result.first.inner_text()
    # A fraction is not a transmitted value: refused on the page, nothing sent.
    form.locator("input[name='value']").fill("5.5")
    form.locator("button[type='submit']").click()
    said.filter(has_text="not a whole number").wait_for(timeout=WAIT_MS)
    watched.shot("der-commands-operate-raw")
    watched.assert_clean()


def test_device_profile_without_a_document_says_what_to_do(watched: Watched, site: Site) -> None:
    from tests.support.net import free_port

    answer = httpx.post(
        f"{site.running.base_url}/api/add",
        json={
            "name": "nodoc",
            "host": "127.0.0.1",
            "port": free_port(),
            "profile": "ieee1815.2",
            "manual": True,
        },
    )
    assert answer.json()["ok"] or answer.json()["error"]["kind"] == "connection", answer.json()
    page = open_console(watched, site, "nodoc", "der")
    page.click("button[data-part='document']")
    guidance = page.locator(".der-document .no-document")
    guidance.wait_for(timeout=WAIT_MS)
    assert "No Device Profile document was given for nodoc" in guidance.inner_text()
    assert "Or a file" in guidance.inner_text()
    page.click("text=Show the document")
    said = page.locator(".der-document > .msg")
    said.filter(has_text="choose a Device Profile file").wait_for(timeout=WAIT_MS)
    assert "device_profile" not in said.inner_text()
    watched.shot("der-document-none")
    # A file chosen here is used.
    document = site_document(site)
    page.set_input_files(
        "input[aria-label='Device Profile file']",
        files=[{"name": "der.xml", "mimeType": "text/xml", "buffer": document}],
    )
    page.locator(".der-document .muted", has_text="file der.xml").wait_for(timeout=WAIT_MS)
    page.click("text=Show the document")
    said.filter(has_text="sections").wait_for(timeout=WAIT_MS)
    watched.shot("der-document-chosen-file")
    # What failed: reads of an outstation never connected (503), and the page asking the
    # service whether it holds a document (400, once).
    assert [f for f in watched.failed if "HTTP 503" not in f] == [
        f"POST {site.running.base_url}/api: HTTP 400"
    ], watched.failed
    watched.failed.clear()
    assert all("Failed to load resource" in e for e in watched.errors), watched.errors
    watched.errors.clear()
    watched.assert_clean()


def site_document(site: Site) -> bytes:
    from gridwire.simulator.device_profile import der_device_profile

    return der_device_profile(site.der.device, port=site.der.port)  # type: ignore[arg-type]


def test_der_readings_name_a_state_once(watched: Watched, site: Site) -> None:
    nameplate = der_call(site, "der.read", group="Nameplate")["points"]
    binary = next(p for p in nameplate if p["type"] == "bi" and p["state"])
    page = open_console(watched, site, "der", "der")
    key = f"bi:{binary['index']}"
    cell = page.locator(f".der-points tr[data-key='{key}'] td").nth(2)
    # The row may first show the bit alone, until the profile's state names arrive (the
    # page asks for the profile after the readings): wait for the state's name, then hold
    # the cell to it exactly, "Supported", never "true Supported".
    page.wait_for_function(
        "([key, text]) => document.querySelector(`.der-points tr[data-key='${key}'] td:nth-child(3)`)"
        "?.textContent === text",
        arg=[key, binary["state"]],
        timeout=WAIT_MS,
    )
    assert cell.inner_text() == binary["state"]  # not "true Supported"
    assert cell.get_attribute("title") == f"as transmitted: {str(binary['raw']).lower()}"
    watched.shot("der-der-readings-state-once")
    watched.assert_clean()


def test_a_schedule_is_written_on_its_timeline_read_back_and_set_ready(
    watched: Watched, site: Site
) -> None:
    page = open_console(watched, site, "der", "der")
    page.click("button[data-part='schedule']")
    page.wait_for_selector(".schedule-chart", timeout=WAIT_MS)
    page.fill("input[aria-label='schedule number']", "3")
    page.click("button:text-is('Select and read')")
    top = page.locator(".der-part .inline > .msg")
    top.filter(has_text="schedule 3").wait_for(timeout=WAIT_MS)
    assert top.inner_text() == "schedule 3: 0 points"
    assert "holds no points" in page.locator(".schedule-chart").text_content()

    editor = page.locator("form.schedule-editor")
    # The type and repeat units are the profile's choices, by name.
    editor.locator("select[name='type']").select_option("13")
    editor.locator("select[name='repeat_units']").select_option("3")
    editor.locator("input[name='priority']").fill("2")
    editor.locator("input[name='repeat_interval']").fill("1")
    editor.locator("input[name='start']").fill("2030-01-02T03:04:05")
    wanted = [[0, 300], [600, 750], [1800, 500]]
    for _ in wanted:
        editor.locator("button:text-is('Add point')").click()
    for i, (offset, value) in enumerate(wanted, start=1):
        for what, v in (("time offset", offset), ("value", value)):
            cell = editor.locator(f"input[aria-label='point {i} {what}']")
            cell.fill(str(v))
            cell.press("Tab")
    editor.locator("button[type='submit']").click()
    said = editor.locator(".msg")
    said.filter(has_text="read back").wait_for(timeout=WAIT_MS)
    assert said.inner_text() == "every write accepted; read back matches ✓"
    assert top.inner_text() == "schedule 3: 3 points"
    facts = page.inner_text(".schedule-facts")
    assert "Active power limit, generating" in facts and "starts 2030-01-02T03:04:05.000Z" in facts
    assert "every 1 Hours" in facts and "not ready" in facts
    chart = page.locator(".schedule-chart")
    assert chart.locator("circle.handle").count() == 3
    steps = chart.locator("polyline.series").get_attribute("points")
    assert steps is not None and len(steps.split()) == 6  # each value held to the next
    schedule = der_call(site, "der.schedule")
    assert (schedule["number"], schedule["type"], schedule["priority"]) == (3, 13, 2)
    assert (schedule["repeat_interval"], schedule["repeat_units"]) == (1, 3)
    assert schedule["start"] == "2030-01-02T03:04:05.000Z"
    assert schedule["points"] == wanted

    page.click("button:text-is('Set ready')")
    top.filter(has_text="ready ✓").wait_for(timeout=WAIT_MS)
    assert top.inner_text() == "schedule 3: accepted; ready ✓"
    page.locator(".schedule-facts").filter(has_text="Ready to run").wait_for(timeout=WAIT_MS)
    watched.shot("der-schedule-written-and-ready")
    assert der_call(site, "der.schedule")["ready"] is True
    page.click("button:text-is('Set not ready')")
    top.filter(has_text="ready ✗").wait_for(timeout=WAIT_MS)
    watched.assert_clean()
