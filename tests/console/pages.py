"""What the console's browser tests share: the tabs, the token, and opening the console on
an outstation's tab."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import httpx

from tests.console.browser import Watched
from tests.console.site import Site

if TYPE_CHECKING:
    from playwright.sync_api import Page


TABS = [
    "overview",
    "points",
    "commands",
    "events",
    "traffic",
    "requests",
    "files",
    "der",
    "evaluate",
    "log",
]
TOKEN = "console-test-token"
WAIT_MS = 15_000


def open_console(watched: Watched, site: Site, outstation: str, tab: str = "overview") -> Page:
    page = watched.page
    page.goto(f"{site.url}#/{outstation}/{tab}")
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    page.wait_for_function(
        "name => window.gridwire.state.stations.get(name)?.loaded === true",
        arg=outstation,
        timeout=WAIT_MS,
    )
    return page


def pane(page: Page, tab: str) -> Any:
    return page.locator(f".pane-{tab}")


def der_call(site: Site, op: str, **params: Any) -> Any:
    """An operation on ``der`` through the service, as a script would ask it."""
    answer = httpx.post(f"{site.running.base_url}/api/{op}", json={"outstation": "der", **params})
    envelope = answer.json()
    assert envelope["ok"], envelope
    return envelope["result"]


def publish_check(site: Site, frames: tuple[int, int], **fields: Any) -> None:
    """Publish a ``check`` event of MON-001 (passed, its frames ``frames``) as an evaluation
    of ``der`` would; ``fields`` replace the result's own."""
    result = {
        "id": "MON-001",
        "title": "Monitoring",
        "verdict": "passed",
        "detail": "",
        "notes": [],
        "requests": 1,
        "seconds": 0.1,
        "frames": list(frames),
        "packets": None,
        **fields,
    }
    site.call(
        lambda: site.running.master.bus.publish("check", {"outstation": "der", "result": result})
    )


def cut_and_corrupted(seed: int, good: bytes, *, with_noise: bool = False) -> list[bytes]:
    """``good`` cut at every length, then 400 copies of it with random octets appended and up
    to five changed (each followed by up to 40 random octets when ``with_noise``)."""
    rng = random.Random(seed)
    samples = [good[:n] for n in range(len(good) + 1)]
    for _ in range(400):
        mutated = bytearray(good + bytes(rng.randrange(256) for _ in range(rng.randrange(300))))
        for _ in range(rng.randrange(6)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        samples.append(bytes(mutated))
        if with_noise:
            samples.append(bytes(rng.randrange(256) for _ in range(rng.randrange(40))))
    return samples
