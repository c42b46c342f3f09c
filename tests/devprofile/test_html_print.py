"""The printable page as Chromium lays it out for print (Debian's Chromium through Playwright,
tests/console/browser.py; skipped where either is missing): on a printed page's width no
word of a table head or an Item cell is broken across lines, and the widest point list keeps
its rows short enough that more than one fits on a page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from gridwire.devprofile.html import render_html
from gridwire.devprofile.layout import lay_out
from gridwire.devprofile.reader import read_document_file
from tests.console.browser import launch
from tests.devprofile.documents import LARGEST, shared_document

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# A Letter page in landscape (as the page asks) less its 1.5 cm margins, at 96 CSS pixels an
# inch: the width print lays the page out in, and the height a page holds.
PRINTED_WIDTH = round((11 - 2 * 1.5 / 2.54) * 96)
PRINTED_HEIGHT = round((8.5 - 2 * 1.5 / 2.54) * 96)

# Each word of each head cell and first cell, checked for a line break inside it: a word
# whose text makes more than one line box was broken.
_BROKEN_WORDS = """
() => {
  const broken = [];
  for (const cell of document.querySelectorAll('th, td:first-child')) {
    const node = cell.firstChild;
    if (!node || node.nodeType !== Node.TEXT_NODE) continue;
    const text = node.textContent;
    for (const match of text.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}
"""

_ROW_HEIGHTS = """
(title) => {
  const heading = [...document.querySelectorAll('h3')].find(h => h.textContent === title);
  const table = heading.nextElementSibling;
  const rows = [...table.querySelectorAll('tbody tr')].map(r => r.offsetHeight);
  return [table.querySelector('thead').offsetHeight, Math.max(...rows)];
}
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def printed(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    path = tmp_path_factory.mktemp("page") / "profile.html"
    path.write_text(render_html(lay_out(read_document_file(shared_document(LARGEST)))))
    page = browser.new_page(viewport={"width": PRINTED_WIDTH, "height": 1000})
    page.emulate_media(media="print")
    page.goto(path.as_uri())
    try:
        yield page
    finally:
        page.close()


def test_no_word_of_a_head_or_an_item_is_broken_on_a_printed_page(printed: Page) -> None:
    assert printed.evaluate(_BROKEN_WORDS) == []


def test_the_widest_point_list_keeps_its_rows_short(printed: Page) -> None:
    # Binary outputs: 13 columns, the widest list of the document, up to nine control
    # operations a row. A printed page holds its head and at least two of its tallest rows.
    head, tallest = printed.evaluate(_ROW_HEIGHTS, "Binary Output Points: Data Points")
    assert head + 2 * tallest < PRINTED_HEIGHT
