"""The console's Points tab in Debian's Chromium (Playwright) against ``gridwire console``
(a subprocess) polling yadnp3's outstation with 1,286 points of each of its seven point
types (9,002 points; its g50v4 and octet strings are not points).

Figures (medians of a few runs):
- open: from navigation until the Points tab shows every point (page load, status, the
  stream, values, profile-less rows built, sorted and the first screenful drawn);
- tab: switching from Overview to Points with the 9,002 points held, to the second frame
  drawn after the click;
- 1,000 updates, end to end: from yadnp3 applying 1,000 analog changes in one transaction
  until the page holds all 1,000 new values (outstation -> unsolicited -> master -> SSE ->
  page);
- 1,000 updates, page only: applying one exchange event of 1,000 objects to the page's
  store and drawing the next frame;
- scroll: frame times while the 9,002 rows are scrolled through in 60 steps.

Run with ``make bench`` or ``.venv/bin/python -m bench console``. Needs /usr/bin/chromium
and Playwright (skipped with a message otherwise).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.console.browser import CHROMIUM, FLAGS
from tests.support.net import free_port, wait_listening
from tests.support.peers import yadnp3_outstation
from tests.support.processes import running

PER_TYPE = 1286
POINTS = PER_TYPE * 7
UPDATES = 1000
RUNS = 5


@contextmanager
def console(outstation_port: int) -> Iterator[str]:
    port = free_port()
    args = [sys.executable, "-m", "gridwire", "console", "--bind", f"127.0.0.1:{port}"]
    args += ["--outstation", f"y=127.0.0.1:{outstation_port}", "--unsolicited", "1,2,3"]
    args += ["--no-token", "--log-level", "WARNING"]
    with running(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        wait_listening(port, timeout=60)
        yield f"http://127.0.0.1:{port}/"


ALL_SHOWN = f"""() => {{
    const s = window.gridwire?.state.stations.get('y');
    return s?.loaded && s.points.size >= {POINTS} &&
        document.querySelector('.pane-points .count')?.textContent === '{POINTS} shown' &&
        document.querySelectorAll('.vt-points .vspacer .vrow:not([hidden])').length > 10;
}}"""

PAGE_ONLY = """async (count) => {
    const { applyObjects } = await import('./console/store.js');
    const objects = [];
    const base = Math.round(Math.random() * 1e6);
    for (let i = 0; i < count; i += 1) {
        objects.push({ type: 'ai', group: 32, variation: 1, index: i, name: null, value: base + i,
                       flags: ['ONLINE'], time_ms: Date.now(), synchronized: null, event: true });
    }
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    await frame();
    const started = performance.now();
    applyObjects('y', objects, 'polled');
    await frame();
    await frame();
    return performance.now() - started;
}"""

TAB_SWITCH = """async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    document.querySelector('#tab-overview').click();
    await frame();
    await frame();
    const started = performance.now();
    document.querySelector('#tab-points').click();
    await frame();
    await frame();
    return performance.now() - started;
}"""

SCROLL = """async (steps) => {
    const viewport = document.querySelector('.vt-points .vviewport');
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const times = [];
    viewport.scrollTop = 0;
    await frame();
    let last = performance.now();
    for (let i = 1; i <= steps; i += 1) {
        viewport.scrollTop = (viewport.scrollHeight - viewport.clientHeight) * i / steps;
        await frame();
        const now = performance.now();
        times.push(now - last);
        last = now;
    }
    return times;
}"""


def _ms(values: list[float]) -> str:
    return (
        f"median {statistics.median(values):.0f} ms (min {min(values):.0f}, max {max(values):.0f})"
    )


def main() -> None:
    if not os.access(CHROMIUM, os.X_OK):
        print("   skipped: /usr/bin/chromium is not installed (apt-get install chromium)")
        return
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("   skipped: Playwright for Python is not installed")
        return
    with (
        yadnp3_outstation(points=PER_TYPE, unsolicited=True, event_buffer=2 * UPDATES) as peer,
        console(peer.port) as url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        opened: list[float] = []
        end_to_end: list[float] = []
        for _ in range(RUNS):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            started = time.perf_counter()
            page.goto(url + "#/y/points")
            page.wait_for_function(ALL_SHOWN, polling="raf", timeout=60_000)
            opened.append((time.perf_counter() - started) * 1000)
            page.close()
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(url + "#/y/points")
        page.wait_for_function(ALL_SHOWN, polling="raf", timeout=60_000)
        tab = [page.evaluate(TAB_SWITCH) for _ in range(RUNS)]
        for run in range(RUNS):
            value = 100_000 + run * 10_000
            points = [{"type": "analog", "index": i, "value": value + i} for i in range(UPDATES)]
            started = time.perf_counter()
            peer.update_many(points)
            page.wait_for_function(
                f"""() => {{
                    const rows = window.gridwire.state.stations.get('y').points;
                    for (let i = 0; i < {UPDATES}; i += 1)
                        if (rows.get('ai:' + i)?.value !== {value} + i) return false;
                    return true;
                }}""",
                polling="raf",
                timeout=60_000,
            )
            end_to_end.append((time.perf_counter() - started) * 1000)
        page_only = [page.evaluate(PAGE_ONLY, UPDATES) for _ in range(RUNS)]
        page.wait_for_timeout(2000)  # the last rows' flash is over
        frames = page.evaluate(SCROLL, 60)
        browser.close()
    print(f"   Points tab, {POINTS} points from yadnp3 ({PER_TYPE} of each of 7 types):")
    print(f"     open the page until every point is shown: {_ms(opened)}")
    print(f"     switch to the Points tab with them held:  {_ms(tab)}")
    print(f"   {UPDATES} point updates:")
    print(f"     end to end (yadnp3 apply -> page holds all): {_ms(end_to_end)}")
    print(f"     page only (store + next drawn frame):        {_ms(page_only)}")
    print(
        f"   scrolling {POINTS} rows in 60 steps: frame median {statistics.median(frames):.1f} ms,"
        f" p90 {sorted(frames)[int(len(frames) * 0.9)]:.1f} ms, max {max(frames):.1f} ms"
    )
