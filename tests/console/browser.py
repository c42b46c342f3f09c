"""Debian's Chromium (/usr/bin/chromium, package ``chromium``) driven by Playwright for Python,
headless and kept off the network; never a browser Playwright downloads.

Where the browser or Playwright is missing the test is skipped with the reason, except
under CI (CI=true), where .ci/run installs them and their absence is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Response

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console"
VIEWPORT = {"width": 1400, "height": 900}


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; .ci/run should have installed it")
    pytest.skip(reason)


def chromium_path() -> str:
    if not (os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        found = shutil.which("chromium")
        also = f"; found {found} instead" if found else ""
        _missing(f"Debian's Chromium is not at {CHROMIUM} (apt-get install chromium){also}")
    return CHROMIUM


def launch() -> Iterator[Browser]:
    """One headless Chromium: Playwright gives each launch a fresh, temporary profile."""
    path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (pip install -e '.[dev]')")
        raise
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Watched:
    """A page and everything that went wrong on it: JavaScript errors, console errors,
    requests that failed or answered 400 and above."""

    page: Page
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    api_ops: list[str] = field(default_factory=list)

    def attach(self) -> None:
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("console", self._console)
        self.page.on("requestfailed", self._request_failed)
        self.page.on("response", self._response)
        self.page.on("request", self._request)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"console {message.type}: {message.text}")

    def _request_failed(self, request: Request) -> None:
        self.failed.append(f"{request.method} {request.url}: {request.failure}")

    def _response(self, response: Response) -> None:
        if response.status >= 400:
            self.failed.append(f"{response.request.method} {response.url}: HTTP {response.status}")

    def _request(self, request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/api"):
            body: Any = request.post_data_json
            if isinstance(body, dict):
                self.api_ops.append(str(body.get("op")))

    def assert_clean(self) -> None:
        assert not self.errors, "\n".join(self.errors)
        assert not self.failed, "\n".join(self.failed)

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=False)
        return path


def watched_context(browser: Browser, **options: Any) -> Iterator[Watched]:
    """A fresh browser context at :data:`VIEWPORT` (with ``options``, as Playwright's
    new_context takes them), its page watched; closed when the generator ends (a fixture's
    ``yield from``)."""
    context = browser.new_context(viewport=VIEWPORT, **options)  # type: ignore[arg-type]
    watched = Watched(context.new_page())
    watched.attach()
    try:
        yield watched
    finally:
        context.close()
