"""The live DER screen in a real browser against the simulated DER (issue 18): the five tiles
hold the engineering values of the der.read the page itself made (its answers taken off the
wire), the sparklines share one time axis, a chip names each function enabled, and the
operating point sits on the volt-var curve at the coordinates the readings give (voltage in
percent of the reference, reactive power in percent of the maximum)."""

from __future__ import annotations

from typing import Any

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
        assert float(dot.get_attribute("data-x") or "nan") == round(v / vref * 100, 2)
        assert float(dot.get_attribute("data-y") or "nan") == round(q / abs(qmax) * 100, 2)
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
