"""The browser and the site of the console's browser tests: one Chromium (Debian's, under
Playwright) and one service with the simulated DER and a plain 9,000-point outstation
(tests/console/site.py) per test module; each test gets a fresh browser context."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.console.browser import Watched, launch, watched_context
from tests.console.pages import TOKEN
from tests.console.site import Site, console_site

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with console_site(secured_token=TOKEN) as running:
        yield running


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    yield from watched_context(browser, accept_downloads=True)
