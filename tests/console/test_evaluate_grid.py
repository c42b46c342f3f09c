"""Evaluation as a grid, in a real browser against the simulated DER (issue 18): a tile per
check coloured by verdict (amber for a failed restore and for a check an interrupted run left
unrun), a click opening a full-width panel under the tile's row with the detail, the notes and
the timeline of the frames the check recorded (frames of a real scan, compared with the
master's trace), and "Run the failed ones again" starting an evaluation of exactly those
checks."""

from __future__ import annotations

from typing import Any

import httpx

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, der_call, open_console
from tests.console.site import Site

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
