"""der.describe through the service (HTTP, checked against the OpenAPI document it serves, and
the line service) of the simulated DER, read-only: the document it answers is accepted by
der.document, der.compare of it against the same DER finds nothing absent, undeclared or out
of class 0, and an event the DER raised is there in the class its database gives the point;
an unknown outstation and one not connected are answered with errors that say so.
Then the demo (``console --demo``, a subprocess) as a user reaches it over HTTP."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx
import pytest
from lxml import etree

from gridwire.operations.table import default_table
from gridwire.outstation.server import run_outstation
from gridwire.simulator.der import SimulatedDer
from tests.service.harness import error, ok, outstation, running_service
from tests.service.harness import transport as open_transport
from tests.support.net import free_port, wait_listening
from tests.support.processes import running

NS = {"d": "http://www.dnp.org/DNP3/DeviceProfile"}
SERVED = 741  # the demo map's 759 points less the 18 of watt-var, which the DER does not support


def test_der_describe_only_reads() -> None:
    operation = default_table().get("der.describe")
    assert operation is not None and not operation.may_command
    assert operation.target == "required"


def _an_input_with_events(device: SimulatedDer) -> tuple[int, int]:
    """An analog input the DER reports events of (index, class), from its database."""
    for index in device.database.indices("ai"):
        point = device.database.get("ai", index)
        if point.event_class:
            return index, point.event_class
    raise AssertionError("the simulated DER reports no analog input events")


@pytest.mark.parametrize("kind", ["http", "line"])
async def test_der_describe_of_the_simulated_der(kind: str) -> None:
    device = SimulatedDer()
    index, event_class = _an_input_with_events(device)
    async with (
        run_outstation(device, "127.0.0.1", 0) as der,
        running_service() as svc,  # read-only: der.describe only reads
        open_transport(kind, svc) as api,
    ):
        settings = outstation(der.port, name="der", profile="ieee1815.2", manual=True, confirm=True)
        ok(await api.call("add", **settings.model_dump(mode="json")))
        held = device.database.get("ai", index)
        device.database.update("ai", index, held.value + 10_000, now=time.monotonic())
        described = ok(await api.call("der.describe", "der"))
        unknown = error(await api.call("der.describe", "nobody"), "request")
        assert "unknown outstation 'nobody'" in unknown
        off = outstation(free_port(), name="off", reconnect=None).model_dump(mode="json")
        assert error(await api.call("add", **off), "connection")
        assert "not connected" in error(await api.call("der.describe", "off"), "connection")
        document = described["document"]
        compared = ok(await api.call("der.compare", "der", document=document))
        layout = ok(await api.call("der.document", document=document))
    assert (compared["declared"], compared["served"]) == (SERVED, SERVED)
    assert compared["absent"] == compared["undeclared"] == compared["class_0"] == []
    assert layout["title"].endswith(": observed by gridwire")
    assert described["counts"] == {
        "bi": 47,
        "bo": 20,
        "counter": 4,
        "frozen": 4,
        "ai": 371,
        "ao": 295,
    }
    assert described["attributes"] > 0 and described["function_codes"] == [1]
    # watt-var's points, in the map and not served: read by range, refused, left out
    ranged = [e for e in described["exchanges"][2:] if e["request"][4:6] in ("1e", "28")]
    assert ranged and all("PARAMETER_ERROR" in e["indications"] for e in ranged)
    root = etree.fromstring(document.encode())
    (entry,) = root.xpath(f".//d:analogInput[d:index='{index}']", namespaces=NS)
    words = {1: "one", 2: "two", 3: "three"}
    assert entry.findtext("d:changeEventClass", namespaces=NS) == words[event_class]
    (ao0,) = root.xpath(".//d:analogOutput[d:index='0']", namespaces=NS)
    assert ao0.findtext("d:name", namespaces=NS) == "Reference voltage"  # named from the map
    vendor = root.find(".//d:deviceConfig/d:vendorName/d:currentValue/d:value", NS)
    assert vendor is not None and vendor.text == "gridwire"  # device attribute g0v252


def test_der_describe_of_the_demo_compares_clean() -> None:
    port = free_port()
    command = [sys.executable, "-m", "gridwire", "console", "--demo", "--no-token"]
    with running(
        [*command, "--bind", f"127.0.0.1:{port}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if re.search(r"on http://127\.0\.0\.1:\d+/\s", line):
                break
        wait_listening(port)
        base = f"http://127.0.0.1:{port}/api"
        described = httpx.post(f"{base}/der.describe", json={"outstation": "der"}, timeout=60)
        document = described.json()["result"]["document"]
        compared = httpx.post(
            f"{base}/der.compare", json={"outstation": "der", "document": document}, timeout=60
        ).json()["result"]
        layout = httpx.post(f"{base}/der.document", json={"document": document}, timeout=60)
        stop = httpx.post(f"{base}/stop", json={}, timeout=30)
        assert stop.json()["result"] == {"stopping": True}
        assert proc.wait(timeout=30) == 0
    assert compared["absent"] == compared["undeclared"] == compared["class_0"] == []
    assert compared["declared"] == compared["served"] == SERVED
    assert layout.json()["result"]["title"].endswith(": observed by gridwire")
