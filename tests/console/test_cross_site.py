"""Issue 9 item 4 in a real browser: a page of another site, and a DNS-rebinding page, cannot
command a console started with --no-token and --allow-control.

A `gridwire console --demo --no-token --allow-control` runs as a user would start it. Debian's
Chromium then:
- opens a page served from another origin (another port of 127.0.0.1) whose script POSTs to
  the console every way a page can without the console's consent: a body-less POST, a
  text/plain body (both "simple" requests a browser sends without asking), and a JSON body
  (which needs a CORS preflight the console does not grant);
- opens the console under a name the attacker controls (`rebound.test`, resolved to
  127.0.0.1 by Chromium's host resolver rules, as DNS rebinding would), where the page and its
  own same-origin POSTs carry that name in Host.
After each, the console must still answer (not stopped), and its trace must hold no control.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.console.browser import FLAGS, chromium_path
from tests.support.net import free_port
from tests.support.processes import running

pytestmark = pytest.mark.interop

ATTEMPTS = """
async (target) => {
  const tries = [
    [target + "/api/stop", {method: "POST", mode: "no-cors"}],
    [target + "/api/stop", {method: "POST", mode: "no-cors", body: "{}"}],
    [target + "/api", {method: "POST", mode: "no-cors",
      body: JSON.stringify({op: "operate", outstation: "der",
                            params: {points: {bo: {"5": false}}, mode: "direct"}})}],
    [target + "/api/operate", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({outstation: "der", points: {bo: {"5": false}}, mode: "direct"})}],
    [target + "/api/stop", {method: "POST", headers: {"Content-Type": "application/json"},
      body: "{}"}],
  ];
  const seen = [];
  for (const [url, init] of tries) {
    try {
      const answer = await fetch(url, init);
      seen.push(answer.type === "opaque" ? "opaque" : String(answer.status));
    } catch (error) {
      seen.push("refused by the browser");
    }
  }
  return seen;
}
"""


class _Foreign(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>another site</title><p>nothing to see"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def _foreign_site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Foreign)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("console") / "console.log"
    command = [sys.executable, "-m", "gridwire", "console", "--demo", "--no-token"]
    command += ["--allow-control", "--bind", f"127.0.0.1:{port}", "--log-file", str(log)]
    with running(command, stdout=open(Path("/dev/null"), "w")):
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if _status(base).get("ok"):
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the console did not start"
            time.sleep(0.2)
        yield base


def _status(base: str) -> dict[str, object]:
    answer = httpx.post(f"{base}/api/status", json={}, timeout=5)
    return dict(answer.json())


def _controls_in_trace(base: str) -> list[str]:
    answer = httpx.post(f"{base}/api/trace", json={"outstation": "der"}, timeout=5).json()
    assert answer["ok"], answer
    text = json.dumps(answer["result"])
    return [name for name in ("SELECT", "OPERATE", "DIRECT_OPERATE") if f'"{name}' in text]


@contextlib.contextmanager
def _browser(rules: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=[*FLAGS, rules]
        )
        try:
            yield browser
        finally:
            browser.close()


def test_a_page_of_another_site_cannot_command_the_console(console: str) -> None:
    chromium_path()
    pytest.importorskip("playwright")
    with _foreign_site() as foreign, _browser("--host-resolver-rules=MAP x.invalid ~NOTFOUND") as b:
        page = b.new_page()
        page.goto(foreign + "/")
        seen = page.evaluate(ATTEMPTS, console)
        page.close()
    # The simple requests leave the browser (their answers are opaque to the page); the
    # console refused them. The JSON ones need a preflight the console does not grant.
    assert seen[:3] == ["opaque", "opaque", "opaque"]
    assert seen[3:] == ["refused by the browser", "refused by the browser"]
    assert _status(console)["ok"] is True  # not stopped
    assert _controls_in_trace(console) == []


def test_a_dns_rebinding_page_cannot_command_the_console(console: str) -> None:
    chromium_path()
    pytest.importorskip("playwright")
    port = console.rsplit(":", 1)[1]
    rebound = f"http://rebound.test:{port}"
    with _browser("--host-resolver-rules=MAP rebound.test 127.0.0.1") as browser:
        page = browser.new_page()
        first = page.goto(rebound + "/")
        assert first is not None and first.status == 403  # not the console's page
        seen = page.evaluate(ATTEMPTS, rebound)  # same origin as far as the browser knows
        page.close()
    assert seen == ["403", "403", "403", "403", "403"]
    assert _status(console)["ok"] is True
    assert _controls_in_trace(console) == []
