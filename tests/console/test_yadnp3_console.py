"""The console against a DNP3 stack we did not write (issue 18): yadnp3's (opendnp3's)
outstation serving a small DER point map of our own (tests/console/data/yadnp3-console-map.json,
read by the peer with plain JSON, its outputs mirrored to inputs: tests/peers/yadnp3_der.py),
and a ``gridwire console`` process given the same file as its ``--tables``. In Chromium: Points
and Events in the map's engineering units with the raw beside them, Traffic summaries naming
function, objects and ranges with the decode naming points, the Overview's counts and
indications, and the live DER screen's tiles equal to der.read. One yadnp3 process and one
console process for the module."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS
from tests.support.net import free_port
from tests.support.peers import OutstationPeer, yadnp3_der
from tests.support.processes import running
from tests.support.waiting import eventually

pytestmark = pytest.mark.interop

MAP = Path(__file__).parent / "data" / "yadnp3-console-map.json"
POINTS = {(p["kind"], p["index"]): p for p in orjson.loads(MAP.read_bytes())["points"]}
ROWS = ".vspacer .vrow:not([hidden])"


class Console:
    def __init__(self, url: str, peer: OutstationPeer) -> None:
        self.url = url
        self.peer = peer

    def call(self, op: str, outstation: str | None = "y", **params: Any) -> Any:
        where = {"outstation": outstation} if outstation else {}
        answer = httpx.post(f"{self.url}api/{op}", json={**where, **params}, timeout=30)
        envelope = answer.json()
        assert envelope["ok"], envelope
        return envelope["result"]


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    log = tmp_path_factory.mktemp("yadnp3-console") / "console.log"
    port = free_port()
    with yadnp3_der(MAP) as peer:
        command = [
            sys.executable, "-m", "gridwire", "console", "--no-token", "--allow-control",
            "--bind", f"127.0.0.1:{port}", "--tables", str(MAP), "--profile",
            "--outstation", f"y=127.0.0.1:{peer.port}", "--connect-wait", "20",
            "--log-file", str(log),
        ]  # fmt: skip
        with running(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
            assert proc.stdout is not None
            for line in proc.stdout:  # the banner, up to the line naming the OpenAPI document
                if "OpenAPI" in line:
                    break
            else:
                raise AssertionError(f"the console did not start: {log.read_text()}")
            yield Console(f"http://127.0.0.1:{port}/", peer)


def _open(watched: Watched, console: Console, tab: str) -> Any:
    page = watched.page
    page.goto(f"{console.url}#/y/{tab}")
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    page.wait_for_function(
        "() => window.gridwire.state.stations.get('y')?.loaded === true", timeout=WAIT_MS
    )
    return page


def _engineering(kind: str, index: int, raw: int) -> str:
    point = POINTS[(kind, index)]
    value = raw * point.get("multiplier", 1)
    text = repr(int(value)) if float(value).is_integer() else f"{round(value, 6)!r}"
    return f"{text} {point['units']}" if point.get("units") else text


def test_points_events_and_traffic_in_the_map_s_units(watched: Watched, console: Console) -> None:
    page = _open(watched, console, "points")
    console.call("scan", kind="integrity")
    page.click(".segments button[data-type='ai']")
    frequency = POINTS[("AI", 3)]
    row = page.locator(f".vt-points {ROWS}").filter(
        has=page.locator("span:nth-child(2):text-is('3')")
    )
    value = row.locator("span.value")
    page.wait_for_function(
        "([e, t]) => e.textContent === t",
        arg=[value.element_handle(timeout=WAIT_MS), _engineering("AI", 3, frequency["value"])],
        timeout=WAIT_MS,
    )
    assert value.inner_text() == "59.98 Hz"
    assert row.locator("span.raw").inner_text() == str(frequency["value"])
    watched.shot("yadnp3-points-engineering")

    # A setting written: opendnp3's handler mirrors AO0 to AI5, an event the event scan reads.
    written = console.call("der.write", points={"Reference voltage": 241.3}, verify=True)
    assert written["verified"] is True, written
    console.call("scan", kind="events")
    page.click("#tab-events")
    event = page.locator(f".vt-events {ROWS}").filter(
        has=page.locator("span:nth-child(3):text-is('ai') + span:text-is('5')")
    )
    event.first.wait_for(timeout=WAIT_MS)
    assert event.first.locator("span.value").inner_text() == "241.3 V"
    assert event.first.locator("span.raw").inner_text() == "2413"
    watched.shot("yadnp3-events-engineering")

    page.click("#tab-traffic")
    page.fill(".pane-traffic input.filter", "READ g60")
    rows = page.locator(f".vt-frames {ROWS}")
    # The list is filtered on the next frame: wait until its first row is a READ, then judge it.
    summary_of = lambda: rows.first.locator("span").nth(4).inner_text()  # noqa: E731
    eventually(lambda: summary_of().startswith("READ"), within=WAIT_MS / 1000)
    summary = summary_of()
    assert re.match(r"^READ seq=\d+ g60v[1-4]", summary), summary
    # The integrity scan's response: all its objects (a fragment of several frames, read whole).
    page.fill(".pane-traffic input.filter", "RESPONSE g30v1 0-6")
    eventually(lambda: summary_of().startswith("RESPONSE"), within=WAIT_MS / 1000)
    rows.first.click()
    decoded = page.locator(".frame-detail")
    named = decoded.locator("li", has=page.locator(".point-name", has_text="Frequency"))
    named.first.wait_for(state="attached", timeout=WAIT_MS)
    page.eval_on_selector_all(".frame-detail details", "ds => ds.forEach(d => { d.open = true; })")
    assert named.first.inner_text().startswith("Frequency = 59.98 Hz (raw 5998)")
    named.first.scroll_into_view_if_needed()
    watched.shot("yadnp3-traffic-summaries")

    # The ladder: opendnp3's select and operate joined, its IIN bits as lamps (its first
    # response says DEVICE_RESTART), each response's lamps as its octets say.
    console.call("operate", points={"ao": {"0": 2413}}, mode="select")
    page.fill(".pane-traffic input.filter", "")
    page.click(".traffic-views button[data-view='ladder']")
    pair = page.locator(".ladder-svg path.pair")
    pair.first.wait_for(timeout=WAIT_MS)
    select = page.locator(
        f".ladder-svg .message[data-frame='{pair.first.get_attribute('data-select')}']"
    )
    assert select.get_attribute("data-function") == "SELECT"
    frames = {str(f["id"]): f for f in console.call("trace")["frames"]}
    lit_restart = False
    for message in page.locator(".ladder-svg .message.received").all():
        frame = frames[message.get_attribute("data-frame") or ""]
        octets = bytes.fromhex(frame["hex"])
        bits = octets[13] | octets[14] << 8  # IIN1, IIN2 after link header, transport, AC, FC
        lit = {c.get_attribute("data-iin") for c in message.locator("circle.lit").all()}
        assert len(lit) == bin(bits).count("1"), (frame["id"], lit)
        lit_restart = lit_restart or ("DEVICE_RESTART" in lit and bool(bits & 0x80))
    assert lit_restart
    watched.shot("yadnp3-traffic-ladder")
    console.call("der.write", points={"Reference voltage": 240.0})
    watched.assert_clean()


def test_overview_and_live_screen_against_opendnp3(watched: Watched, console: Console) -> None:
    page = _open(watched, console, "overview")
    page.wait_for_selector(".pane-overview", timeout=WAIT_MS)
    status = console.call("status", None)["outstations"][0]
    assert status["connected"] is True
    counted = page.locator(".pane-overview").inner_text()
    assert "Counted by the service since it started." in counted, counted
    assert "The outstation gave none (OBJECT_UNKNOWN)." in counted  # opendnp3 has no g0
    # opendnp3 serves as many points of every type as its database holds (7: one past the
    # map's highest index); the profile names the map's 11, all read.
    assert (
        page.inner_text(".points-of-profile")
        == f"49 points read; {len(POINTS)} of the {len(POINTS)} the profile names."
    )
    assert page.locator(".pane-overview button:text-is('Connect')").is_disabled()
    # opendnp3's events carry no time (g32v1): the latest is said read, not left blank.
    latest = page.locator(".pane-overview dt:text-is('latest') + dd").inner_text()
    assert latest.startswith("no time of its own; read 20"), latest
    watched.shot("yadnp3-overview")

    page.click("#tab-der")
    page.click("button[data-part='live']")
    page.wait_for_function(
        "() => Number(document.querySelector('.sparkline')?.dataset.count) >= 2",
        timeout=WAIT_MS,
    )
    read = {p["label"]: p for p in console.call("der.read", group="Monitoring")["points"]}
    for key, label in (("p", "Active power"), ("q", "Reactive power"), ("v", "Voltage"),
                       ("f", "Frequency"), ("pf", "Power factor")):  # fmt: skip
        tile = page.locator(f".live-tile[data-quantity='{key}'] .live-value")
        value = read[label]["value"]
        shown = repr(int(value)) if float(value).is_integer() else repr(value)
        assert tile.inner_text() == shown, (key, tile.inner_text(), read[label])
    assert page.inner_text(".live-tile[data-quantity='v'] .live-units") == "V"
    assert page.locator(".chip.on[data-function='volt-var']").count() == 1
    assert "no curve" in page.inner_text(".curve-note") or "No curve" in page.inner_text(
        ".curve-note"
    )
    watched.shot("yadnp3-der-live")
    page.click("button.live-toggle")
    watched.assert_clean()
