"""Traffic as a ladder, in a real browser (issue 18): against the simulated DER a
select-before-operate is drawn as a SELECT joined to its OPERATE, and each response's IIN bits
are lamps lit exactly where the frame's IIN octets (read here from the octets by hand: link
header 10 octets, transport 1, application control and function, then IIN1 and IIN2) have a
bit set; against a silent outstation (a socket that listens and never answers) a READ sent
again is marked a retry and both sends are marked "no response"."""

from __future__ import annotations

import socket
from typing import Any

import httpx

from tests.console.browser import Watched
from tests.console.pages import WAIT_MS, der_call, open_console
from tests.console.site import Site

IIN_NAMES = [
    "BROADCAST",
    "CLASS_1_EVENTS",
    "CLASS_2_EVENTS",
    "CLASS_3_EVENTS",
    "NEED_TIME",
    "LOCAL_CONTROL",
    "DEVICE_TROUBLE",
    "DEVICE_RESTART",
    "FUNC_NOT_SUPPORTED",
    "OBJECT_UNKNOWN",
    "PARAMETER_ERROR",
    "EVENT_BUFFER_OVERFLOW",
    "ALREADY_EXECUTING",
    "CONFIG_CORRUPT",
    "RESERVED_2",
    "RESERVED_1",
]  # fmt: skip  (IEEE 1815-2012 4.2.2.7.2: IIN1.0..IIN1.7, IIN2.0..IIN2.7)


def _iin_set(hex_octets: str) -> list[str]:
    octets = bytes.fromhex(hex_octets)
    bits = octets[13] | octets[14] << 8
    return [name for bit, name in enumerate(IIN_NAMES) if bits >> bit & 1]


def _ladder(page: Any) -> None:
    page.click(".traffic-views button[data-view='ladder']")
    page.wait_for_selector(".ladder-svg", timeout=WAIT_MS)


def test_ladder_joins_select_to_operate_and_lights_iin_lamps(watched: Watched, site: Site) -> None:
    functions = der_call(site, "der.functions")["functions"]
    setting = next(s for f in functions for s in f["settings"] if s["minimum"] is not None)
    present = der_call(site, "der.read", names=[setting["address"]])["points"][0]["raw"]
    page = open_console(watched, site, "der", "traffic")
    _ladder(page)
    der_call(site, "operate", points={"ao": {str(setting["index"]): present}}, mode="select")
    # A point the outstation does not have: its response sets an IIN2 bit (a lamp lit).
    unknown = der_call(site, "read", points={"ai": [65000]})
    assert set(unknown["indications"]) & {"OBJECT_UNKNOWN", "PARAMETER_ERROR"}, unknown
    pair = page.locator(".ladder-svg path.pair").last
    pair.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(
        ".ladder-svg circle.lit[data-iin='PARAMETER_ERROR'], "
        ".ladder-svg circle.lit[data-iin='OBJECT_UNKNOWN']",
        timeout=WAIT_MS,
    )
    select_id, operate_id = pair.get_attribute("data-select"), pair.get_attribute("data-operate")
    select = page.locator(f".ladder-svg .message[data-frame='{select_id}']")
    operate = page.locator(f".ladder-svg .message[data-frame='{operate_id}']")
    assert select.get_attribute("data-function") == "SELECT"
    assert operate.get_attribute("data-function") == "OPERATE"
    assert (
        int(operate.get_attribute("data-seq") or -1)
        == (int(select.get_attribute("data-seq") or -9) + 1) % 16
    )
    # The trace says the same: the SELECT's frame and the OPERATE after it, same objects.
    frames = {str(f["id"]): f for f in der_call(site, "trace")["frames"]}
    assert bytes.fromhex(frames[select_id]["hex"])[12] == 3  # SELECT
    assert bytes.fromhex(frames[operate_id]["hex"])[12] == 4  # OPERATE
    assert page.locator(".ladder-svg .pair-name").last.text_content() == "select→ operate"

    # Every response's lamps: lit exactly where its IIN octets have a bit set.
    lit_somewhere = False
    responses = page.locator(".ladder-svg .message.received")
    for message in responses.all():
        frame = frames.get(message.get_attribute("data-frame") or "")
        if frame is None:
            continue
        lit = [c.get_attribute("data-iin") for c in message.locator("circle.iin-lamp.lit").all()]
        assert lit == _iin_set(frame["hex"]), (frame["id"], lit)
        assert message.locator("circle.iin-lamp").count() == 16
        lit_somewhere = lit_somewhere or bool(lit)
    assert responses.count() > 0
    page.click(f".ladder-svg .message[data-frame='{operate_id}'] rect.hit")
    page.locator(".frame-detail h3", has_text=f"Frame {operate_id} sent").wait_for(timeout=WAIT_MS)
    watched.shot("traffic-ladder-select-operate")
    assert lit_somewhere
    watched.assert_clean()


def test_ladder_marks_a_retry_and_no_response(watched: Watched, site: Site) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # the kernel accepts; nothing ever answers
    try:
        added = httpx.post(
            f"{site.running.base_url}/api/add",
            json={
                "name": "silent",
                "host": "127.0.0.1",
                "port": silent.getsockname()[1],
                "manual": True,
                "read_retries": 1,
                "response_timeout": 0.3,
            },
        ).json()
        assert added["ok"], added
        page = open_console(watched, site, "silent", "traffic")
        _ladder(page)
        scan = httpx.post(
            f"{site.running.base_url}/api/scan",
            json={"outstation": "silent", "kind": "integrity"},
            timeout=30,
        ).json()
        assert scan["result"]["outcome"] == "timeout", scan
        assert scan["result"]["retries"] == 1, scan
        retry = page.locator(".ladder-svg .message.retry")
        retry.wait_for(timeout=WAIT_MS)
        first = page.locator(".ladder-svg .message.sent").first
        assert (
            retry.locator(".retry-mark").text_content()
            == f"retry of {first.get_attribute('data-frame')}"
        )
        assert retry.get_attribute("data-seq") == first.get_attribute("data-seq")
        marks = page.locator(".ladder-svg .message.timeout .timeout-mark")
        assert marks.count() == 2 and marks.first.text_content() == "✕ no response"
        watched.shot("traffic-ladder-retry-timeout")
        httpx.post(f"{site.running.base_url}/api/remove", json={"outstation": "silent"})
    finally:
        silent.close()
    watched.assert_clean()
