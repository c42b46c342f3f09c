"""The console's Traffic tab in a real browser: frames decoded layer by layer, the pcap a
saved capture holds (read back by tshark), saved requests, pause and filters, and the frame
decoder under hypothesis."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.dnp3.link import encode_frame
from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, cut_and_corrupted, open_console
from tests.console.site import Site
from tests.support.tshark import tshark_fields

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


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
    good = bytes.fromhex("056414c400040100e9b6c0c0013c02063c03063c04063c01068a51")
    samples = cut_and_corrupted(1815, good, with_noise=True)
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
