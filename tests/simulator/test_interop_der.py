"""The simulated DER read completely and commanded by third-party masters (yadnp3's, which is
opendnp3, and dnp3py's), and its traffic read by tshark."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridwire.der.demo import demo_map
from gridwire.simulator import SimulatedDer
from tests.outstation.serving import loopback_capture, serving
from tests.support.peers import dnp3py_master, yadnp3_master
from tests.support.tshark import tshark_fields

pytestmark = pytest.mark.interop


def _map_points() -> dict[str, set[int]]:
    """The points of the demo map the DER serves (all but those of watt-var, which it does
    not support), by the type names the peer harness prints."""
    point_map, der = demo_map(), SimulatedDer()

    def served(kind: str) -> set[int]:
        return {p.index for p in point_map.by_kind(kind) if der.serves(p)}

    return {
        "binary": served("BI"),
        "binary_output_status": served("BO"),
        "counter": served("CTR"),
        "frozen_counter": {p.index for p in point_map.by_kind("CTR") if p.frozen},
        "analog": served("AI"),
        "analog_output_status": served("AO"),
    }


def _scanned(values: list[dict[str, object]]) -> dict[str, set[int]]:
    """Every point a scan's static values (not its events) reported, by type."""
    found: dict[str, set[int]] = {}
    for value in values:
        if not value.get("is_event", False):
            found.setdefault(str(value["type"]), set()).add(int(value["index"]))  # type: ignore[call-overload]
    return found


def test_yadnp3_master_scans_and_commands_the_der(tmp_path: Path) -> None:
    der = SimulatedDer()
    with serving(der, tick_interval=0.2) as served:
        pcap = tmp_path / "der.pcap"
        with loopback_capture(served.port, pcap), yadnp3_master(served.port) as master:
            scan = master.scan()
            assert scan.result == "SUCCESS" and scan.reply["fragments"] > 1
            assert _scanned(scan.values) == _map_points()
            assert scan.value("analog", 31)["value"] == 60000.0  # nominal frequency, mHz
            # Volt-var is disabled: its reading AI301 is sent without ONLINE (flag bit 0).
            assert scan.value("analog", 301)["flags"] & 0x01 == 0
            # Enable volt-var (BO29) with a latch, select-before-operate.
            reply = master.operate("crob", 29, mode="sbo", op_type="LATCH_ON")
            assert reply["points"][0]["status"] == "SUCCESS"
            scan = master.scan(classes=[0])
            assert scan.value("binary", 81)["value"] is True
            assert scan.value("analog", 301)["flags"] & 0x01 == 1
            # A setting, mirrored by its input: constant vars target AO203 -> AI281.
            reply = master.operate("int32", 203, mode="direct", value=250)
            assert reply["points"][0]["status"] == "SUCCESS"
            assert master.scan(classes=[0]).value("analog", 281)["value"] == 250.0
            # Refusals with the profile's statuses.
            refusals: list[tuple[tuple[str, int], dict[str, object], str]] = [
                (("int32", 88), {"value": 5000}, "OUT_OF_RANGE"),  # beyond 100.0 %
                (("crob", 30), {"op_type": "LATCH_ON"}, "NOT_SUPPORTED"),  # watt-var
                (("int32", 244), {"value": 9}, "OUT_OF_RANGE"),  # no curve 9
                (("int32", 249), {"value": 90}, "AUTOMATION_INHIBIT"),  # curve 1, in use
                (("int32", 217), {"value": 2}, "NOT_SUPPORTED"),  # a volt-watt curve
            ]
            for (kind, index), fields, status in refusals:
                reply = master.operate(kind, index, mode="direct", **fields)
                assert reply["points"][0]["status"] == status, (kind, index, reply)
            # The changes came as events, with the device's time.
            events = master.scan(classes=[1, 2, 3])
            enabled = [v for v in events.values if (v["type"], v["index"]) == ("binary", 81)]
            assert enabled and enabled[-1]["value"] is True and enabled[-1]["is_event"]
            assert enabled[-1]["time_ms"] > 1_600_000_000_000
    port = served.port
    sent = f"tcp.srcport=={port} && tcp.len>0"
    rows = tshark_fields(pcap, port, ["dnp3.al.func"], sent)
    assert rows and {r[0] for r in rows if r[0]} <= {"129", "130"}
    assert tshark_fields(pcap, port, ["frame.number"], f"{sent} && _ws.malformed") == []
    assert tshark_fields(pcap, port, ["frame.number"], f"{sent} && !dnp3") == []
    # The refusals' statuses as tshark reads them: 12 OUT_OF_RANGE, 4 NOT_SUPPORTED,
    # 10 AUTOMATION_INHIBIT.
    statuses = tshark_fields(pcap, port, ["dnp3.al.ctrlstatus"], f"{sent} && dnp3.al.ctrlstatus")
    seen = {s for row in statuses for s in row[0].split(",")}
    assert {"0", "4", "10", "12"} <= seen


def test_dnp3py_master_scans_and_commands_the_der() -> None:
    der = SimulatedDer()
    with serving(der) as served, dnp3py_master(served.port) as master:
        scan = master.scan()
        assert scan.result == "SUCCESS", scan.reply
        # dnp3py prints no event marker: every value counts, the static ones cover the map.
        assert _scanned(scan.values) == _map_points()
        reply = master.operate("crob", 17, mode="direct", op_type="LATCH_ON")
        assert reply["points"] == [{"index": 17, "status": "SUCCESS"}]
        reply = master.operate("int32", 88, mode="sbo", value=400)
        assert reply["points"] == [{"index": 88, "status": "SUCCESS"}]
        reply = master.operate("int32", 88, mode="direct", value=-3)
        assert reply["points"] == [{"index": 88, "status": "OUT_OF_RANGE"}]
        scan = master.scan(classes=[0])
        assert scan.value("binary", 69)["value"] is True  # active power limit enabled
        assert scan.value("analog", 149)["value"] == 400
