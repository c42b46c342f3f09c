"""The console's pages while 9,000 points update once a second: the live DER screen, the
Points tab, and the Traffic ladder, each open alone in Debian's Chromium (Playwright) against
the console's test site (tests/console/site.py: the simulated DER ``der`` and the plain
9,000-point outstation ``plain``, which reports unsolicited). A thread changes every one of
``plain``'s 9,000 points once a second, so every page receives them over the event stream
(the store takes them whichever view is open).

Figures per page, over WINDOW_S seconds after a warm-up:
- frame time: the intervals between the page's animation frames (requestAnimationFrame),
  median, p95 and max, and how many frames took longer than 50 ms;
- CPU: the page's main-thread busy time from Chromium's performance metrics (CDP
  ``Performance.getMetrics``: TaskDuration, and of it ScriptDuration, LayoutDuration and
  RecalcStyleDuration), as a share of the wall-clock window.

"Before" is the Points tab as it was at two commits: 9f699e1 on main (the commit the live
screen, the evaluation grid and the ladder were built on), and e9cee42 on integ (just before
D145 made the Points tab cheap under this load: its rows' flash was a CSS background
animation, repainting every changed row every frame). Each is the same measurement run in a
subprocess whose ``gridwire`` package is that commit's ``src`` (``git archive``), so the page,
its store and the service are all as they were. The live screen and the ladder did not exist
at 9f699e1. The machine may be shared: run it more than once and compare ratios.

Run with ``make bench`` or ``.venv/bin/python -m bench console_live``. Needs /usr/bin/chromium
and Playwright (skipped with a message otherwise).
"""

from __future__ import annotations

import functools
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from io import BytesIO
from pathlib import Path
from typing import Any

import orjson

BEFORE = {"9f699e1": "main, before the live screen", "e9cee42": "integ, before D145"}
WINDOW_S = 10.0
WARM_S = 3.0
ROOT = Path(__file__).resolve().parents[1]

RECORD = """(seconds) => new Promise((resolve) => {
    const times = [];
    let last = performance.now();
    const end = last + seconds * 1000;
    const step = (now) => {
        times.push(now - last);
        last = now;
        if (now < end) requestAnimationFrame(step); else resolve(times);
    };
    requestAnimationFrame(step);
})"""

VIEWS = {
    "points": ("plain", "points", None),
    "live": ("der", "der", "button[data-part='live']"),
    "ladder": ("plain", "traffic", ".traffic-views button[data-view='ladder']"),
}


def _updater(site: Any, stop: threading.Event) -> threading.Thread:
    """Every second, a new value for each of plain's 9,000 points (on the service's loop)."""
    from tests.console.site import PLAIN_POINTS

    def change(tick: int) -> None:
        db = site.plain_device.database
        now = site.plain.clock.monotonic()
        for kind, count in PLAIN_POINTS.items():
            for index in range(count):
                value: bool | int = (
                    (index + tick) % 2 == 0 if kind in ("bi", "bo") else index + tick
                )
                db.update(kind, index, value, now=now)

    def run() -> None:
        tick = 0
        while not stop.is_set():
            started = time.monotonic()
            tick += 1
            site.call(functools.partial(change, tick))
            stop.wait(max(0.0, 1.0 - (time.monotonic() - started)))

    thread = threading.Thread(target=run, name="updates", daemon=True)
    thread.start()
    return thread


def _metrics(cdp: Any) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def measure(views: list[str]) -> dict[str, dict[str, float]]:
    from playwright.sync_api import sync_playwright
    from tests.console.browser import CHROMIUM, FLAGS, VIEWPORT
    from tests.console.site import console_site

    figures: dict[str, dict[str, float]] = {}
    stop = threading.Event()
    with console_site() as site, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        thread = _updater(site, stop)
        try:
            for view in views:
                outstation, tab, click = VIEWS[view]
                page = browser.new_page(viewport=VIEWPORT)
                page.goto(f"{site.url}#/{outstation}/{tab}")
                page.wait_for_function(
                    "n => window.gridwire?.state.stations.get(n)?.loaded === true",
                    arg=outstation,
                    timeout=60_000,
                )
                if click:
                    page.click(click)
                page.wait_for_timeout(WARM_S * 1000)
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")
                before = _metrics(cdp)
                started = time.perf_counter()
                frames: list[float] = page.evaluate(RECORD, WINDOW_S)
                wall = time.perf_counter() - started
                after = _metrics(cdp)
                ordered = sorted(frames)
                busy = {k: (after[k] - before[k]) / wall * 100 for k in ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")}  # fmt: skip
                figures[view] = {
                    "frames": len(frames),
                    "median": statistics.median(frames),
                    "p95": ordered[int(len(ordered) * 0.95)],
                    "max": ordered[-1],
                    "long": sum(1 for f in frames if f > 50),
                    "cpu": busy["TaskDuration"],
                    "script": busy["ScriptDuration"],
                    "layout": busy["LayoutDuration"],
                    "style": busy["RecalcStyleDuration"],
                }
                page.close()
        finally:
            stop.set()
            thread.join(10)
            browser.close()
    return figures


def _before(commit: str) -> dict[str, dict[str, float]] | None:
    """The Points tab measured with the package as it was at ``commit``, or None (said why)."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "src"],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"   before: {commit} could not be read from git ({exc})")
        return None
    with tempfile.TemporaryDirectory(prefix="gridwire-before-") as folder:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        env = {**os.environ, "PYTHONPATH": f"{folder}/src"}
        done = subprocess.run(
            [sys.executable, "-m", "bench.bench_console_live", "--json", "points"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            timeout=300,
        )
    if done.returncode != 0:
        print(f"   before: the run at {commit} failed: {done.stderr.decode()[-400:]}")
        return None
    figures: dict[str, dict[str, float]] = orjson.loads(done.stdout.splitlines()[-1])
    return figures


def _line(name: str, f: dict[str, float]) -> str:
    return (
        f"     {name:<34} frame median {f['median']:.1f} ms, p95 {f['p95']:.1f}, max {f['max']:.0f}"
        f" ({f['long']:.0f} of {f['frames']:.0f} over 50 ms); CPU {f['cpu']:.1f} %"
        f" (script {f['script']:.1f}, layout {f['layout']:.1f}, style {f['style']:.1f})"
    )


def main() -> None:
    from tests.console.browser import CHROMIUM

    if not os.access(CHROMIUM, os.X_OK):
        print("   skipped: /usr/bin/chromium is not installed (apt-get install chromium)")
        return
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("   skipped: Playwright for Python is not installed")
        return
    print(f"   9,000 points changing once a second; each page open alone for {WINDOW_S:.0f} s:")
    befores = {commit: _before(commit) for commit in BEFORE}
    for commit, figures in befores.items():
        if figures:
            print(_line(f"before ({commit}): Points tab", figures["points"]))
    after = measure(list(VIEWS))
    print(_line("after: Points tab", after["points"]))
    for commit, figures in befores.items():
        if figures:
            was, now = figures["points"], after["points"]
            print(
                f"     Points after / before {commit} ({BEFORE[commit]}): CPU"
                f" {now['cpu'] / max(was['cpu'], 0.1):.2f}x, frame p95"
                f" {now['p95'] / max(was['p95'], 0.1):.2f}x"
            )
    print(_line("after: DER > Live (der, 1 read/s)", after["live"]))
    print(_line("after: Traffic > Ladder (plain)", after["ladder"]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--json"]:
        print(orjson.dumps(measure(sys.argv[2:])).decode())
    else:
        main()
