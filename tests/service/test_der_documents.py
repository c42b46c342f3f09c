"""der.document and der.compare through the service (HTTP, checked against the OpenAPI
document it serves, and the line service): where the document comes from (sent, the
outstation's device_profile, the service's --device-profile), the refusals, the gate (both are
answered by a service that may not command), and console --demo giving the demo DER its own
Device Profile."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from gridwire.devprofile.layout import lay_out
from gridwire.devprofile.reader import read_document_file
from gridwire.operations.table import default_table
from gridwire.outstation.server import run_outstation
from gridwire.process.runtime import settle_heap
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile
from tests.devprofile.documents import shared_document
from tests.service.harness import error, ok, outstation, running_service
from tests.service.harness import transport as open_transport
from tests.support.net import free_port, wait_listening
from tests.support.processes import running

TRANSPORTS = ["http", "line"]


def jsonable(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))


def test_neither_operation_commands() -> None:
    table = default_table()
    for name in ("der.document", "der.compare"):
        operation = table.get(name)
        assert operation is not None and not operation.may_command
    assert table.get("der.document").target == "optional"  # type: ignore[union-attr]
    assert table.get("der.compare").target == "required"  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_der_document_of_a_document_sent_with_no_outstation(kind: str) -> None:
    path = shared_document("2.10")
    expected = jsonable(dataclasses.asdict(lay_out(read_document_file(path))))
    async with running_service() as svc, open_transport(kind, svc) as api:
        layout = ok(await api.call("der.document", document=path.read_text(encoding="utf-8")))
        assert layout == expected
        assert layout["title"] == "OpenDNP3 profile"
        refused = error(await api.call("der.document", document="<!DOCTYPE x><x/>"), "request")
        assert refused == (
            "Device Profile document refused: it declares a document type (DTD); a Device "
            "Profile may not"
        )
        wrong = error(await api.call("der.document", document="<html/>"), "request")
        assert "its root element is <html>" in wrong
        missing = error(await api.call("der.document"), "request")
        assert missing.startswith("der.document needs a Device Profile document")


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_der_document_of_an_outstation_not_connected(kind: str, tmp_path: Path) -> None:
    """A read-only service answers for an outstation that is not connected, from its own
    document; an outstation with none is told how to give one; the service's document is the
    fallback."""
    mine = shared_document("2.08")
    nobody = free_port()
    async with running_service() as svc, open_transport(kind, svc) as api:
        added = await api.call(
            "add",
            **outstation(nobody, name="off", device_profile=str(mine), reconnect=None).model_dump(
                mode="json"
            ),
        )
        assert error(added, "connection")  # it stays added, not connected
        layout = ok(await api.call("der.document", "off"))
        assert layout["title"] == "Opendnp3 profile"
        entries = {o["name"]: o for o in ok(await api.call("status"))["outstations"]}
        assert entries["off"]["device_profile"] == str(mine)  # status says which document
        error(
            await api.call("add", **outstation(nobody, name="bare", reconnect=None).model_dump()),
            "connection",
        )
        none = error(await api.call("der.document", "bare"), "request")
        assert none == (
            "outstation 'bare' has no Device Profile document: send it as document, give the "
            "outstation device_profile (a file) in add or in its --config entry, or start the "
            "service with --device-profile FILE"
        )
        unknown = error(await api.call("der.document", "nobody", document="<x/>"), "request")
        assert "unknown outstation 'nobody'" in unknown
        svc.service.context.device_profile = shared_document("2.07")  # --device-profile
        assert ok(await api.call("der.document", "bare"))["title"] == "open dnp3 profile document"
        assert ok(await api.call("der.document"))["title"] == "open dnp3 profile document"
        assert ok(await api.call("der.document", "off"))["title"] == "Opendnp3 profile"
        gone = tmp_path / "gone.xml"
        error(
            await api.call(
                "add",
                **outstation(
                    nobody, name="typo", device_profile=str(gone), reconnect=None
                ).model_dump(),
            ),
            "connection",
        )
        unreadable = error(await api.call("der.document", "typo"), "request")
        assert unreadable == (
            f"Device Profile document {gone} (device_profile of outstation 'typo') cannot be "
            "read: No such file or directory"
        )
        compare = error(await api.call("der.compare", "off"), "connection")
        assert "not connected" in compare


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_der_compare_of_the_simulated_der(kind: str, tmp_path: Path) -> None:
    device = SimulatedDer()
    async with (
        run_outstation(device, "127.0.0.1", 0) as der,
        running_service() as svc,  # read-only: der.compare only reads
        open_transport(kind, svc) as api,
    ):
        document = der_device_profile(device, port=der.port)
        path = tmp_path / "der.xml"
        path.write_bytes(document)
        settings = outstation(der.port, name="der", profile="ieee1815.2", device_profile=str(path))
        ok(await api.call("add", **settings.model_dump(mode="json")))
        result = ok(await api.call("der.compare", "der"))
        # the demo map's 759 points less the 18 of watt-var, which the DER does not support
        assert (result["declared"], result["served"]) == (741, 741)
        assert result["absent"] == result["undeclared"] == result["class_0"] == []
        assert len(result["points"]) == 741 and len(result["exchanges"]) == 2
        moved = document.replace(b"<index>537</index>", b"<index>9000</index>", 1).decode()
        result = ok(await api.call("der.compare", "der", document=moved))
        assert result["absent"] == [
            {"type": "ai", "index": 9000, "name": "System meter active power"}
        ]
        assert result["undeclared"] == [
            {"type": "ai", "index": 537, "name": "System meter active power"}
        ]
        assert [e["function"] for e in result["exchanges"]] == ["READ"] * 3
        refused = error(await api.call("der.compare", "der", document="<x"), "request")
        assert "it is not XML" in refused


def test_console_demo_gives_the_demo_der_its_own_device_profile() -> None:
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
        layout = httpx.post(f"{base}/der.document", json={"outstation": "der"}, timeout=60)
        assert layout.json()["result"]["title"].startswith("gridwire simulated IEEE 1815.2 DER")
        compared = httpx.post(f"{base}/der.compare", json={"outstation": "der"}, timeout=60)
        result = compared.json()["result"]
        assert result["absent"] == [] and result["undeclared"] == []
        assert result["declared"] == result["served"] > 0
        stop = httpx.post(f"{base}/stop", json={}, timeout=30)
        assert stop.json()["result"] == {"stopping": True}
        assert proc.wait(timeout=30) == 0


def test_a_config_file_gives_each_outstation_its_device_profile(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_bytes(
        orjson.dumps(
            {
                "device_profile": "service.xml",
                "outstations": [
                    {"name": "a", "host": "127.0.0.1", "port": 20001, "device_profile": "a.xml"},
                    {"name": "b", "host": "127.0.0.1", "port": 20002},
                ],
            }
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "gridwire", "config", "--config", str(config)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed = orjson.loads(done.stdout)
    assert printed["device_profile"] == "service.xml"
    assert [o["device_profile"] for o in printed["outstations"]] == ["a.xml", None]
    config.write_bytes(
        orjson.dumps({"outstations": [{"name": "a", "host": "h", "port": 1, "device_profile": ""}]})
    )
    empty = subprocess.run(
        [sys.executable, "-m", "gridwire", "config", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert empty.returncode == 2
    assert "outstations.0.device_profile" in empty.stderr


@pytest.mark.serial
async def test_a_large_document_does_not_hold_the_event_loop() -> None:
    """Reading and laying out a document runs in a worker thread: while a 3.5 MiB document
    (60,000 points) is laid out, the loop still runs a ticker every few milliseconds. Inline,
    the layout alone holds the loop for the whole of it (about a second here)."""
    entries = "<binaryInput><index>1</index><name>n</name></binaryInput>" * 60_000
    big = (
        "<DNP3DeviceProfileDocument><referenceDevice><dataPointsList><binaryInputPoints>"
        f"<dataPoints>{entries}</dataPoints></binaryInputPoints></dataPointsList>"
        "</referenceDevice></DNP3DeviceProfileDocument>"
    )
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.002)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    # The heap settled as `gridwire console` and `serve` settle theirs once started (and as
    # tests/conftest.py does after collection): a full collection of pytest's heap stopped
    # both threads 140-270 ms, the test process's doing, not the service's. Settled, the
    # longest gap measured 14-16 ms.
    thresholds = gc.get_threshold()
    settle_heap()
    try:
        async with running_service() as svc, open_transport("line", svc) as api:
            ticking = asyncio.ensure_future(ticker())
            started = time.perf_counter()
            layout = ok(await api.call("der.document", document=big))
            took = time.perf_counter() - started
            done.set()
            await ticking
    finally:
        gc.set_threshold(*thresholds)  # the heap stays frozen, as tests/conftest.py left it
    assert len(layout["sections"][0]["tables"][0]["rows"]) == 60_000
    assert max(gaps) < max(0.25, took / 4), (max(gaps), took)
