"""An evaluation page printed as a lab would: Debian's Chromium (driven by Playwright, as the
console's tests do) prints it to A4 and Letter PDF; poppler's pdftotext and pdftoppm read the
pages back (the PNGs of the pages and a screenshot of the header go to test-artifacts/report
to be looked at)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.console.browser import FLAGS, chromium_path

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "report"


def print_page(page: Path, stem: str) -> dict[str, Path]:
    """The page as ``<stem>-a4.pdf`` and ``<stem>-letter.pdf`` (and ``<stem>-header.png``)
    in test-artifacts/report, each PDF's pages as PNGs beside it."""
    path = chromium_path()
    for tool in ("pdftotext", "pdftoppm"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install poppler-utils)")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    made: dict[str, Path] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=FLAGS)
        try:
            tab = browser.new_page(viewport={"width": 1200, "height": 900})
            tab.goto(page.resolve().as_uri())
            made["header"] = ARTIFACTS / f"{stem}-header.png"
            tab.screenshot(path=str(made["header"]))
            for paper in ("A4", "Letter"):
                pdf = ARTIFACTS / f"{stem}-{paper.lower()}.pdf"
                tab.pdf(path=str(pdf), format=paper, print_background=True)
                made[paper.lower()] = pdf
        finally:
            browser.close()
    for paper in ("a4", "letter"):
        pdf = made[paper]
        subprocess.run(
            ["pdftoppm", "-png", "-r", "50", str(pdf), str(pdf.with_suffix(""))],
            check=True,
            timeout=120,
        )
    return made


def pdf_text(pdf: Path) -> str:
    """The text of the PDF, laid out as printed (one line of text per printed line)."""
    return subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def pages_of(pdf: Path) -> int:
    return pdf_text(pdf).count("\f") or 1
