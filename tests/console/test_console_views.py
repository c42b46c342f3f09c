"""The three views issue 18 asks beyond any console in this field, in a real browser against the
simulated DER (one site and one browser for the module):

- the live DER screen: the five tiles hold the engineering values of the der.read the page
  itself made (its answers taken off the wire), the sparklines share one time axis, a chip
  names each function enabled, and the operating point sits on the volt-var curve at the
  coordinates the readings give (voltage in percent of the reference, reactive power in percent
  of the maximum);
- traffic as a ladder: a select-before-operate is drawn as a SELECT joined to its OPERATE, and
  each response's IIN bits are lamps lit exactly where the frame's IIN octets (read here from
  the octets by hand: link header 10 octets, transport 1, application control and function,
  then IIN1 and IIN2) have a bit set; against a silent outstation (a socket that listens and
  never answers) a READ sent again is marked a retry and both sends "no response";
- evaluation as a grid: a tile per check coloured by verdict (amber for a failed restore and
  for a check an interrupted run left unrun), a click opening a full-width panel under the
  tile's row with the detail, the notes and the timeline of the frames the check recorded
  (frames of a real scan, compared with the master's trace), and "Run the failed ones again"
  starting an evaluation of exactly those checks.
"""

from __future__ import annotations

import socket
from typing import Any

import httpx

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, der_call, open_console
from tests.console.site import Site

QUANTITIES = {
    "p": "System meter active power",
    "q": "System meter reactive power",
    "v": "System meter voltage, phase A",
    "f": "System meter frequency",
    "pf": "System meter power factor",
}


def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else f"{float(f'{value:.7g}')!r}"


def test_live_screen_tiles_sparklines_chips_and_operating_point(
    watched: Watched, site: Site
) -> None:
    der_call(site, "der.enable", function="volt-var")
    answers: list[dict[str, Any]] = []

    def taken(response: Any) -> None:
        body = response.request.post_data_json
        if (
            response.url.endswith("/api")
            and isinstance(body, dict)
            and body.get("op") == "der.read"
        ):
            answers.append(response.json()["result"])

    try:
        page = open_console(watched, site, "der", "der")
        page.on("response", taken)
        page.click("button[data-part='live']")
        page.wait_for_selector(".live-curve .operating-point", timeout=WAIT_MS)
        # A few polls, so the sparklines have a line and the axis a tick.
        page.wait_for_function(
            '() => Number(document.querySelector(".sparkline")?.dataset.count) >= 3',
            timeout=WAIT_MS,
        )
        assert page.get_attribute("[data-polling]", "data-polling") == "on"
        assert page.locator(".chip.on[data-function='volt-var']").inner_text().strip() == "Volt-VAr"
        watched.shot("der-live-polling")
        page.click("button.live-toggle")  # Stop: the tiles hold the last answer
        assert page.get_attribute("[data-polling]", "data-polling") == "off"
        assert page.inner_text("button.live-toggle") == "Start"
        page.wait_for_timeout(300)  # a poll already on its way lands
        polls = watched.api_ops.count("der.read")
        last = next(a for a in reversed(answers) if len(a["points"]) > 2)
        read = {p["label"]: p for p in last["points"]}
        for key, label in QUANTITIES.items():
            tile = page.locator(f".live-tile[data-quantity='{key}']")
            point = read[label]
            assert tile.locator(".live-value").inner_text() == _number(point["value"]), key
            assert tile.locator(".live-units").inner_text() == (point["units"] or ""), key
        # One time axis: every sparkline spans the same times, and the axis has clock ticks.
        spans = page.eval_on_selector_all(".sparkline", "s => s.map(e => e.dataset.span)")
        assert len(spans) == 5 and len(set(spans)) == 1, spans
        ticks = page.eval_on_selector_all(".live-axis .time-tick", "t => t.map(e => e.textContent)")
        assert ticks and all(len(t.split(":")) == 3 for t in ticks), ticks
        # The operating point: V in percent of the volt-var reference, Q of the maximum vars.
        vref = read["Volt-VAr voltage reference in effect"]["value"]
        qmax = read["Maximum reactive power, injecting"]["value"]
        v = read[QUANTITIES["v"]]["value"]
        q = read[QUANTITIES["q"]]["value"]
        dot = page.locator(".live-curve .operating-point")
        # (the page rounds to 0.01 half up, Python's round half to even: 0.005 apart at most)
        assert abs(float(dot.get_attribute("data-x") or "nan") - v / vref * 100) <= 0.0051
        assert abs(float(dot.get_attribute("data-y") or "nan") - q / abs(qmax) * 100) <= 0.0051
        curve = der_call(site, "der.curve")
        assert curve["type_name"] == "Volt-var"
        assert page.locator(".live-curve .curve-point").count() == curve["count"]
        note = page.inner_text(".curve-note")
        assert f"runs on curve {curve['number']}" in note, note
        assert f"= {_number(v)} V of {_number(vref)} V" in note, note
        watched.shot("der-live-stopped")
        page.wait_for_timeout(1500)
        assert watched.api_ops.count("der.read") == polls  # stopped means no reads
        # Another part, then back: the screen starts polling again by itself only when it
        # was left, not after its own Stop.
        page.click("button.live-toggle")
        page.click("button[data-part='readings']")
        page.wait_for_timeout(1500)  # the screen's next tick finds itself unseen and stops
        page.click("button[data-part='live']")
        assert page.get_attribute("[data-polling]", "data-polling") == "on"
        page.click("button.live-toggle")
        watched.assert_clean()
    finally:
        der_call(site, "der.disable", function="volt-var")


IIN_NAMES = [
    "BROADCAST",
    "CLASS_1_EVENTS",
    "CLASS_2_EVENTS",
    "CLASS_3_EVENTS",
    "NEED_TIME",
    "LOCAL_CONTROL",
    "DEVICE_TROUBLE",
    "DEVICE_RESTART",
    "FUNC_NOT_SUPPORTED",
    "OBJECT_UNKNOWN",
    "PARAMETER_ERROR",
    "EVENT_BUFFER_OVERFLOW",
    "ALREADY_EXECUTING",
    "CONFIG_CORRUPT",
    "RESERVED_2",
    "RESERVED_1",
]  # fmt: skip  (IEEE 1815-2012 4.2.2.7.2: IIN1.0..IIN1.7, IIN2.0..IIN2.7)


def _iin_set(hex_octets: str) -> list[str]:
    octets = bytes.fromhex(hex_octets)
    bits = octets[13] | octets[14] << 8
    return [name for bit, name in enumerate(IIN_NAMES) if bits >> bit & 1]


def _ladder(page: Any) -> None:
    page.click(".traffic-views button[data-view='ladder']")
    page.wait_for_selector(".ladder-svg", timeout=WAIT_MS)


def test_ladder_joins_select_to_operate_and_lights_iin_lamps(watched: Watched, site: Site) -> None:
    functions = der_call(site, "der.functions")["functions"]
    setting = next(s for f in functions for s in f["settings"] if s["minimum"] is not None)
    present = der_call(site, "der.read", names=[setting["address"]])["points"][0]["raw"]
    page = open_console(watched, site, "der", "traffic")
    _ladder(page)
    der_call(site, "operate", points={"ao": {str(setting["index"]): present}}, mode="select")
    # A point the outstation does not have: its response sets an IIN2 bit (a lamp lit).
    unknown = der_call(site, "read", points={"ai": [65000]})
    assert set(unknown["indications"]) & {"OBJECT_UNKNOWN", "PARAMETER_ERROR"}, unknown
    pair = page.locator(".ladder-svg path.pair").last
    pair.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(
        ".ladder-svg circle.lit[data-iin='PARAMETER_ERROR'], "
        ".ladder-svg circle.lit[data-iin='OBJECT_UNKNOWN']",
        timeout=WAIT_MS,
    )
    select_id, operate_id = pair.get_attribute("data-select"), pair.get_attribute("data-operate")
    select = page.locator(f".ladder-svg .message[data-frame='{select_id}']")
    operate = page.locator(f".ladder-svg .message[data-frame='{operate_id}']")
    assert select.get_attribute("data-function") == "SELECT"
    assert operate.get_attribute("data-function") == "OPERATE"
    assert (
        int(operate.get_attribute("data-seq") or -1)
        == (int(select.get_attribute("data-seq") or -9) + 1) % 16
    )
    # The trace says the same: the SELECT's frame and the OPERATE after it, same objects.
    frames = {str(f["id"]): f for f in der_call(site, "trace")["frames"]}
    assert bytes.fromhex(frames[select_id]["hex"])[12] == 3  # SELECT
    assert bytes.fromhex(frames[operate_id]["hex"])[12] == 4  # OPERATE
    assert page.locator(".ladder-svg .pair-name").last.text_content() == "select→ operate"

    # Every response's lamps: lit exactly where its IIN octets have a bit set.
    lit_somewhere = False
    responses = page.locator(".ladder-svg .message.received")
    for message in responses.all():
        frame = frames.get(message.get_attribute("data-frame") or "")
        if frame is None:
            continue
        lit = [c.get_attribute("data-iin") for c in message.locator("circle.iin-lamp.lit").all()]
        assert lit == _iin_set(frame["hex"]), (frame["id"], lit)
        assert message.locator("circle.iin-lamp").count() == 16
        lit_somewhere = lit_somewhere or bool(lit)
    assert responses.count() > 0
    page.click(f".ladder-svg .message[data-frame='{operate_id}'] rect.hit")
    page.locator(".frame-detail h3", has_text=f"Frame {operate_id} sent").wait_for(timeout=WAIT_MS)
    watched.shot("traffic-ladder-select-operate")
    assert lit_somewhere
    watched.assert_clean()


def test_ladder_marks_a_retry_and_no_response(watched: Watched, site: Site) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # the kernel accepts; nothing ever answers
    try:
        added = httpx.post(
            f"{site.running.base_url}/api/add",
            json={
                "name": "silent",
                "host": "127.0.0.1",
                "port": silent.getsockname()[1],
                "manual": True,
                "read_retries": 1,
                "response_timeout": 0.3,
            },
        ).json()
        assert added["ok"], added
        page = open_console(watched, site, "silent", "traffic")
        _ladder(page)
        scan = httpx.post(
            f"{site.running.base_url}/api/scan",
            json={"outstation": "silent", "kind": "integrity"},
            timeout=30,
        ).json()
        assert scan["result"]["outcome"] == "timeout", scan
        assert scan["result"]["retries"] == 1, scan
        retry = page.locator(".ladder-svg .message.retry")
        retry.wait_for(timeout=WAIT_MS)
        first = page.locator(".ladder-svg .message.sent").first
        assert (
            retry.locator(".retry-mark").text_content()
            == f"retry of {first.get_attribute('data-frame')}"
        )
        assert retry.get_attribute("data-seq") == first.get_attribute("data-seq")
        # The second is said unanswered once the master's exchange event says timeout.
        page.wait_for_function(
            "() => document.querySelectorAll('.ladder-svg .message.timeout').length === 2",
            timeout=WAIT_MS,
        )
        marks = page.locator(".ladder-svg .message.timeout .timeout-mark")
        assert marks.count() == 2 and marks.first.text_content() == "✕ no response"
        watched.shot("traffic-ladder-retry-timeout")
        httpx.post(f"{site.running.base_url}/api/remove", json={"outstation": "silent"})
    finally:
        silent.close()
    watched.assert_clean()


# The tile colours the stylesheet gives each tone (computed background-color).
BACKGROUND = {
    "passed": "rgb(211, 239, 221)",
    "failed": "rgb(247, 213, 208)",
    "amber": "rgb(253, 231, 176)",
    "not_applicable": "rgb(236, 239, 242)",
}


def _checks(site: Site) -> dict[str, str]:
    answer = httpx.post(f"{site.running.base_url}/api/checks", json={}).json()
    return {c["id"]: c["title"] for c in answer["result"]["checks"]}


def _continues(frame: dict[str, Any]) -> bool:
    """Whether a frame carries a later segment of a fragment (transport header without FIR),
    read from its octets: link header 10 octets, then the transport octet."""
    octets = bytes.fromhex(frame["hex"])
    return len(octets) > 10 and not octets[10] & 0x40


def _publish(site: Site, result: dict[str, Any]) -> None:
    """A ``check`` event of ``der`` as an evaluation publishes it."""
    whole = {"requests": 0, "seconds": 0.1, "frames": None, "packets": None, **result}
    site.call(
        lambda: site.running.master.bus.publish("check", {"outstation": "der", "result": whole})
    )


def test_evaluation_grid_tiles_panel_timeline_and_rerun(watched: Watched, site: Site) -> None:
    titles = _checks(site)
    page = open_console(watched, site, "der", "evaluate")
    page.wait_for_selector("input[data-check='MON-001']", state="attached", timeout=WAIT_MS)
    page.click(".result-views button[data-view='grid']")
    page.fill("input[name='settle']", "0.1")
    page.dispatch_event("input[name='settle']", "change")
    # A real scan: its frames are what the failed check "recorded".
    last = max((f["id"] for f in der_call(site, "trace")["frames"]), default=0)
    der_call(site, "scan", kind="integrity")
    frames = [f for f in der_call(site, "trace", after=last)["frames"]]
    span = (frames[0]["id"], frames[-1]["id"])
    others = [c for c in titles if c not in ("MON-001", "ALARM-001")]
    results: list[dict[str, Any]] = [
        {"id": "MON-001", "verdict": "not_run", "interrupted": True, "frames": None},
        {
            "id": "ALARM-001",
            "verdict": "failed",
            "detail": "the alarm did not clear",
            "notes": ["first note", "second note"],
            "frames": list(span),
            "requests": 1,
        },
        {"id": others[0], "verdict": "passed", "notes": ["restore failed: curve 1: timeout"]},
        {"id": others[1], "verdict": "passed", "frames": None},
        {"id": others[2], "verdict": "not_applicable", "frames": None},
    ]
    for r in results:
        _publish(site, {"title": titles[r["id"]], "detail": "", "notes": [], **r})
    tiles = page.locator(".check-grid .check-tile")
    page.wait_for_function(
        "n => document.querySelectorAll('.check-grid .check-tile').length === n",
        arg=len(results),
        timeout=WAIT_MS,
    )
    tones = {t.get_attribute("data-check"): t.get_attribute("data-tone") for t in tiles.all()}
    assert tones == {
        "MON-001": "amber",
        "ALARM-001": "failed",
        others[0]: "amber",
        others[1]: "passed",
        others[2]: "not_applicable",
    }
    for check, tone in tones.items():
        tile = page.locator(f".check-tile[data-check='{check}']")
        color = tile.evaluate("e => getComputedStyle(e).backgroundColor")
        assert color == BACKGROUND.get(tone, BACKGROUND["not_applicable"]), (check, color)
    assert "restore failed" in page.inner_text(f".check-tile[data-check='{others[0]}']")
    watched.shot("evaluate-grid-tiles")

    page.click(".check-tile[data-check='ALARM-001']")
    panel = page.locator(".check-panel")
    panel.wait_for(timeout=WAIT_MS)
    assert "the alarm did not clear" in panel.locator(".detail").inner_text()
    assert panel.locator("ul.notes li").all_inner_texts() == ["first note", "second note"]
    items = panel.locator(".timeline-item")
    items.first.wait_for(timeout=WAIT_MS)
    # One entry per application fragment: a frame that opens one (the master's trace says
    # so in its summary: a later segment's summary names the transport layer alone).
    opening = [f for f in frames if not _continues(f)]
    assert [int(i.get_attribute("data-frame") or 0) for i in items.all()] == [
        f["id"] for f in opening
    ]
    directions = [i.locator(".who").inner_text() for i in items.all()]
    assert directions == [
        "master →" if f["direction"] == "sent" else "← outstation" for f in opening
    ]
    assert items.first.locator(".what").inner_text().startswith("READ")
    segments = sum(
        int(t.split("+")[1].split()[0]) for t in panel.locator(".what small").all_inner_texts()
    )
    assert segments + len(opening) == len(frames)
    # Full width: the panel spans the grid.
    widths = page.evaluate(
        "() => [document.querySelector('.check-panel').getBoundingClientRect().width,"
        " document.querySelector('.check-grid').getBoundingClientRect().width]"
    )
    assert abs(widths[0] - widths[1]) < 2, widths
    watched.shot("evaluate-grid-panel")

    again = page.locator("button.rerun")
    assert again.inner_text() == "Run the failed ones again (2)"
    with page.expect_request(
        lambda r: r.url.endswith("/api") and (r.post_data_json or {}).get("op") == "evaluate"
    ) as asked:
        again.click()
    params = asked.value.post_data_json["params"]
    assert params["checks"] == ["MON-001", "ALARM-001"]
    assert params["settle"] == 0.1
    page.locator(".evaluate-setup > .msg").filter(has_text="not run").wait_for(timeout=30_000)
    ran = {t.get_attribute("data-check") for t in tiles.all()}
    assert ran == {"MON-001", "ALARM-001"}
    watched.shot("evaluate-grid-rerun")
    page.click(".result-views button[data-view='table']")  # the next page opens on the table
    watched.assert_clean()
