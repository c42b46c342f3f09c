"""The Traffic tab read as a test engineer reads it: summaries that name the function, the
objects and their ranges (checked against the request octets the master reports, parsed
here by hand from IEEE 1815-2012 4.2.2.7); a filter that finds a word inside another
(OPERATE in DIRECT_OPERATE); a decode pane that never keeps a frame the list no longer
shows; decoded objects named from the profile with engineering values (checked against
der.read, the service's own scaling); and an application-layer-only view."""

from __future__ import annotations

import re

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, cut_and_corrupted, der_call, open_console, publish_check
from tests.console.site import Site

ROWS = ".vt-frames .vspacer .vrow:not([hidden])"


def _header(request_hex: str) -> tuple[int, int, int, int]:
    """The first object header of an application request: group, variation, start, stop
    (qualifier 0x00: one-octet start and stop; 0x01: two octets, little-endian)."""
    octets = bytes.fromhex(request_hex)
    group, variation, qualifier = octets[2], octets[3], octets[4]
    if qualifier == 0x00:
        return group, variation, octets[5], octets[6]
    assert qualifier == 0x01, hex(qualifier)
    return (
        group,
        variation,
        int.from_bytes(octets[5:7], "little"),
        int.from_bytes(octets[7:9], "little"),
    )


def test_summaries_name_function_objects_and_ranges(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "traffic")
    answer = der_call(site, "read", points={"ai": ["533-556"]})
    group, variation, start, stop = _header(answer["request"])
    sequence = int(answer["request"][:2], 16) & 0x0F
    assert (group, start, stop) == (30, 533, 556)
    wanted = f"READ seq={sequence} g{group}v{variation} {start}-{stop}"
    page.fill(".pane-traffic input.filter", f"g30v{variation} {start}-{stop}")
    row = page.locator(ROWS).filter(has_text=wanted)
    row.first.wait_for(timeout=WAIT_MS)
    watched.shot("der-traffic-summaries")
    # The response names its objects too, with the range it carries.
    page.fill(".pane-traffic input.filter", f"RESPONSE seq={sequence}")
    response = page.locator(ROWS).filter(
        has_text=re.compile(rf"RESPONSE seq={sequence} IIN .*g30v\d+ {start}-{stop}")
    )
    response.first.wait_for(timeout=WAIT_MS)
    watched.assert_clean()


def test_the_filter_finds_a_word_inside_another(watched: Watched, site: Site) -> None:
    functions = der_call(site, "der.functions")["functions"]
    setting = next(
        s
        for f in functions
        for s in f["settings"]
        if s["multiplier"] == 0.1 and s["minimum"] is not None
    )
    written = der_call(site, "der.write", points={setting["address"]: setting["minimum"] + 2})
    assert written["exchanges"][0]["function"] == "DIRECT_OPERATE"
    page = open_console(watched, site, "der", "traffic")
    page.fill(".pane-traffic input.filter", "OPERATE")
    direct = re.compile(r"DIRECT_OPERATE seq=\d+ g41v\d \[\d+\]")
    page.locator(ROWS).filter(has_text=direct).first.wait_for(timeout=WAIT_MS)
    texts = page.locator(ROWS).all_inner_texts()
    assert texts and all("OPERATE" in t for t in texts), texts
    watched.shot("der-traffic-filter-substring")
    watched.assert_clean()


def test_the_decode_pane_never_keeps_a_frame_the_list_does_not_show(
    watched: Watched, site: Site
) -> None:
    page = open_console(watched, site, "der", "traffic")
    detail = page.locator(".frame-detail")
    page.locator(ROWS).filter(has_text="RESPONSE").first.click()
    detail.locator("h3", has_text="Frame").wait_for(timeout=WAIT_MS)
    # A filter that leaves the chosen frame out empties the pane...
    page.fill(".pane-traffic input.filter", "CONFIRM")
    detail.locator("text=Choose a frame").wait_for(timeout=WAIT_MS)
    watched.shot("der-traffic-filtered-pane-cleared")
    page.fill(".pane-traffic input.filter", "")
    page.locator(ROWS).filter(has_text="RESPONSE").first.click()
    detail.locator("h3", has_text="Frame").wait_for(timeout=WAIT_MS)
    # ...and so does a jump from Evaluate to a check's frames.
    page.click("#tab-evaluate")
    page.wait_for_selector("input[data-check='MON-001']", state="attached", timeout=WAIT_MS)
    publish_check(site, (1, 1))
    page.click("table.results tr[data-check='MON-001'] button:text-is('frames 1-1')")
    page.wait_for_selector(".pane-traffic:not([hidden])")
    detail.locator("text=Choose a frame").wait_for(timeout=WAIT_MS)
    watched.shot("der-traffic-jump-pane-cleared")
    watched.assert_clean()


def test_the_decode_names_points_with_engineering_values(watched: Watched, site: Site) -> None:
    nameplate = der_call(site, "der.read", group="Nameplate")["points"]
    point = next(
        p
        for p in nameplate
        if p["type"] == "ai" and isinstance(p["raw"], int) and p["units"] and p["value"] != p["raw"]
    )
    page = open_console(watched, site, "der", "traffic")
    answer = der_call(site, "read", points={"ai": [point["index"]]})
    sequence = int(answer["request"][:2], 16) & 0x0F
    # The list held still by a filter, so the row clicked is the row meant.
    page.fill(".pane-traffic input.filter", f"RESPONSE seq={sequence} ")
    summary = re.compile(rf"RESPONSE seq={sequence} .*g30v\d+ {point['index']}\b")
    response = page.locator(ROWS).filter(has_text=summary)
    response.first.click()
    detail = page.locator(".frame-detail")
    detail.locator(".frame-summary", has_text=summary).wait_for(timeout=WAIT_MS)
    line = detail.locator("li", has=page.locator("strong.point-name"))
    line.first.wait_for(timeout=WAIT_MS)
    value = f"{point['value']:g}" if isinstance(point["value"], float) else str(point["value"])
    expected = f"{point['label']} = {value} {point['units']} (raw {point['raw']})"
    assert line.first.inner_text().startswith(expected), line.first.inner_text()
    watched.shot("der-traffic-decode-named")
    watched.assert_clean()


def test_application_layer_only_view_reads_a_fragment_whole(watched: Watched, site: Site) -> None:
    page = open_console(watched, site, "der", "traffic")
    der_call(site, "scan", kind="integrity")  # a response of several frames
    count = page.locator(".pane-traffic .count")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.vt-frames .vrow')]"
        ".some((r) => r.textContent.includes('segment seq='))",
        timeout=WAIT_MS,
    )
    every = int(count.inner_text().split()[0])
    page.check("input[aria-label='application layer only']")
    page.wait_for_function(
        "n => parseInt(document.querySelector('.pane-traffic .count').textContent) < n",
        arg=every,
        timeout=WAIT_MS,
    )
    texts = page.locator(ROWS).all_inner_texts()
    assert texts and not any("segment seq=" in t or "link " in t for t in texts), texts
    page.locator(ROWS).filter(has_text="… continues").first.click()
    note = page.locator(".frame-detail .fragment-note")
    note.wait_for(timeout=WAIT_MS)
    first, last = map(int, re.search(r"frames (\d+)-(\d+)", note.inner_text()).groups())  # type: ignore[union-attr]
    assert last > first
    watched.shot("der-traffic-application-only")
    watched.assert_clean()


def test_summaries_take_any_octets(watched: Watched, site: Site) -> None:
    """The summary's light decode (objects stepped over unread) never throws and always
    says something, on frames cut or corrupted anywhere; on a good frame it names what the
    full decode names."""
    import base64

    page = open_console(watched, site, "der", "log")
    good = bytes.fromhex("056414c400040100e9b6c0c0013c02063c03063c04063c01068a51")
    samples = cut_and_corrupted(18152, good)
    hexes = [base64.b16encode(s).decode().lower() for s in samples]
    failures, first = page.evaluate(
        """async (hexes) => {
            const { frameSummary } = await import('./console/dnp3.js');
            const failures = [];
            for (const hex of hexes) {
                try {
                    if (!frameSummary(hex)) failures.push([hex, 'empty']);
                } catch (error) {
                    failures.push([hex, String(error)]);
                }
            }
            return [failures, frameSummary(hexes[27])];  // hexes[27]: the good frame whole
        }""",
        hexes,
    )
    assert failures == []
    # The good frame by hand: transport C0 (FIR FIN, seq 0), application C0 01 (READ, seq 0),
    # then g60v2, g60v3, g60v4 and g60v1, each with qualifier 06 (all objects).
    assert first == "READ seq=0 g60v2 g60v3 g60v4 g60v1"
    watched.assert_clean()
