"""The peer harness proves itself by running the third-party peers against each other.

Interoperation shown here: yadnp3 (opendnp3 3.2) master with yadnp3 outstation over TCP and
over TLS (RSA 2048 and ECDSA P-256 certificates made by tests/support/certs.py); yadnp3 master
with the dnp3py outstation; dnp3py master with the yadnp3 outstation. Every port is a free
loopback port; every peer is a subprocess stopped by pid.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import time

import pytest

from tests.support.certs import Pki
from tests.support.peers import (
    Peer,
    PeerError,
    dnp3py_master,
    dnp3py_outstation,
    yadnp3_bench,
    yadnp3_master,
    yadnp3_outstation,
)

pytestmark = pytest.mark.interop

YADNP3_TYPES = {
    "binary",
    "double_bit",
    "analog",
    "counter",
    "frozen_counter",
    "binary_output_status",
    "analog_output_status",
    "time_and_interval",
    "octet_string",
}
DNP3PY_TYPES = YADNP3_TYPES - {"double_bit", "time_and_interval", "octet_string"}
RESTART = 0x0002  # the RESTART flag of a point not updated since the outstation started


def test_integrity_scan_sees_every_point_of_every_type() -> None:
    with yadnp3_outstation(points=7) as outstation, yadnp3_master(outstation.port) as master:
        scan = master.scan()
        assert scan.result == "SUCCESS"
        assert scan.reply["counts"] == dict.fromkeys(YADNP3_TYPES, 7)
        assert {(v["type"], v["index"]) for v in scan.values} == {
            (t, i) for t in YADNP3_TYPES for i in range(7)
        }
        assert scan.value("analog", 6)["flags"] == RESTART
        # The outstation saw one READ of class 1, 2, 3 then 0: g60 v2, v3, v4, v1, qualifier 06.
        read = outstation.expect(
            "request", fc=0x01, hex="C2 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06"
        )
        assert [(h["group"], h["variation"]) for h in read["headers"]] == [
            (60, 2),
            (60, 3),
            (60, 4),
            (60, 1),
        ]


def test_controls_arrive_once_each_with_their_fields() -> None:
    with yadnp3_outstation(points=5) as outstation, yadnp3_master(outstation.port) as master:
        crob = {"op_type": "PULSE_ON", "count": 2, "on_ms": 250, "off_ms": 750}
        reply = master.operate("crob", 2, mode="sbo", **crob)
        assert reply["summary"] == "SUCCESS"
        assert reply["points"] == [{"index": 2, "state": "SUCCESS", "status": "SUCCESS"}]
        expected = {"kind": "crob", "index": 2, "tcc": "NUL", "clear": False, **crob}
        selected = outstation.expect("select", index=2)
        operated = outstation.expect("operate", index=2)
        assert {k: selected[k] for k in expected} == expected
        assert {k: operated[k] for k in expected} == expected
        assert operated["mode"] == "SelectBeforeOperate"
        # By hand (IEEE 1815-2012 A.8.1): g12v1, qualifier 0x28, count 1, index 2, control code
        # 0x01 (PULSE_ON, NUL, no clear), count 2, on 250 ms, off 750 ms, status 0.
        crob_octets = "0C 01 28 01 00 02 00 01 02 FA 00 00 00 EE 02 00 00 00"
        assert outstation.expect("request", fc=0x03)["hex"].endswith(crob_octets)
        assert outstation.expect("request", fc=0x04)["hex"].endswith(crob_octets)

        assert master.operate("float32", 1, value=12.25)["summary"] == "SUCCESS"
        analog = outstation.expect("operate", kind="float32", index=1)
        assert (analog["value"], analog["mode"]) == (12.25, "DirectOperate")
        # g41v3: qualifier 0x28, count 1, index 1, 12.25 as IEEE 754 single 0x41440000, status 0.
        assert outstation.expect("request", fc=0x05)["hex"].endswith(
            "29 03 28 01 00 01 00 00 00 44 41 00"
        )

        assert master.operate("int32", 4, value=70000)["summary"] == "SUCCESS"
        outstation.expect("operate", kind="int32", index=4, value=70000)
        # Last: yadnp3's master waits its response timeout (5 s) after a no-ack request
        # before it starts its next task.
        assert master.operate("int16", 3, mode="direct_nr", value=-7)["sent"] is True
        no_ack = outstation.expect("operate", kind="int16", index=3)
        assert (no_ack["value"], no_ack["mode"]) == (-7, "DirectOperateNoAck")
        outstation.expect("request", fc=0x06)
        for index in (2, 1, 3, 4):
            assert len(outstation.received("operate", index=index)) == 1
        assert len(outstation.received("select")) == 1


def test_refusals_are_answered_as_told() -> None:
    with yadnp3_outstation(points=5) as outstation, yadnp3_master(outstation.port) as master:
        outstation.answer("LOCAL", count=1)
        refused = master.operate("crob", 1, op_type="LATCH_ON")
        assert refused["points"][0]["status"] == "LOCAL"
        assert outstation.expect("operate", index=1)["status"] == "LOCAL"
        assert master.operate("crob", 1, op_type="LATCH_ON")["points"][0]["status"] == "SUCCESS"
        outstation.answer("NOT_AUTHORIZED", on="operate")
        sbo = master.operate("crob", 0, mode="sbo", op_type="LATCH_OFF")
        assert outstation.expect("select", index=0)["status"] == "SUCCESS"
        assert sbo["points"][0]["status"] == "NOT_AUTHORIZED"
        beyond = master.operate("int32", 9, value=1)  # the database has indexes 0..4
        assert beyond["points"][0]["status"] == "NOT_SUPPORTED"


def test_value_updates_reach_the_master_with_flags_and_time() -> None:
    with yadnp3_outstation(points=5) as outstation, yadnp3_master(outstation.port) as master:
        outstation.update("analog", 3, 42.5, flags=0x01, time_ms=1_700_000_000_123)
        outstation.update("binary", 1, True, flags=0x01)
        # g32v3 (32-bit with time) asks for the event with its time; opendnp3's default g32v1
        # would carry none.
        events = master.read(32, 3)
        event = events.value("analog", 3)
        assert (event["value"], event["flags"], event["time_ms"]) == (42.0, 0x01, 1_700_000_000_123)
        # Its default static variation is g30v1 (integer): 42.5 truncates; g30v5 keeps it.
        assert master.read(30, 5).value("analog", 3)["value"] == 42.5
        assert master.scan(classes=[0]).value("analog", 3)["value"] == 42.0
        static = master.scan(classes=[0])
        assert (static.value("binary", 1)["value"], static.value("binary", 1)["flags"]) == (
            True,
            0x81,
        )
        outstation.update_many(
            [
                {"type": "double_bit", "index": 0, "value": "DETERMINED_ON", "flags": 0x01},
                {"type": "analog_output_status", "index": 4, "value": -3.0},
            ]
        )
        static = master.scan(classes=[0])
        # g3v2's flags carry the state in bits 7-6: DETERMINED_ON (2) is 0x80, plus ONLINE.
        assert (static.value("double_bit", 0)["value"], static.value("double_bit", 0)["flags"]) == (
            "DETERMINED_ON",
            0x81,
        )
        assert static.value("analog_output_status", 4)["value"] == -3.0


def test_unsolicited_events_reach_the_master() -> None:
    with (
        yadnp3_outstation(points=5, unsolicited=True) as outstation,
        yadnp3_master(outstation.port) as master,
    ):
        master.expect("task", type="ENABLE_UNSOLICITED", result="SUCCESS", timeout=20)
        outstation.update("counter", 2, 31337)
        value = master.expect("value", type="counter", index=2, unsolicited=True, timeout=20)
        assert value["value"] == 31337
        assert outstation.expect("response", fc=0x82, fin=True, con=True)["uns"] is True


@pytest.mark.parametrize(
    ("mode", "via", "function"), [("lan", "g50v3", 0x18), ("nonlan", "g50v1", 0x17)]
)
def test_need_time_is_answered_with_a_time_write(mode: str, via: str, function: int) -> None:
    with (
        yadnp3_outstation(points=2, need_time=True) as outstation,
        yadnp3_master(outstation.port, time_sync=mode) as master,
    ):
        master.expect(lambda e: e["event"] == "iin" and "NEED_TIME" in e["bits"], timeout=20)
        written = outstation.expect("time_write", timeout=20)
        assert (written["via"], written["lan"]) == (via, mode == "lan")
        assert abs(written["offset_ms"]) < 5_000  # the master's clock is this machine's
        # LAN: RECORD_CURRENT_TIME (0x18) then WRITE g50v3; otherwise DELAY_MEASURE (0x17).
        outstation.expect("request", fc=function)
        assert outstation.expect("request", fc=0x02, fin=True)["headers"][0]["variation"] in (1, 3)
        master.expect(lambda e: e["event"] == "iin" and "NEED_TIME" not in e["bits"], timeout=20)


def test_restart_requests_freeze_and_assign_class() -> None:
    with yadnp3_outstation(points=4) as outstation, yadnp3_master(outstation.port) as master:
        cold = master.call({"cmd": "restart", "kind": "cold"})
        assert (cold["summary"], cold["delay"]) == ("SUCCESS", 1)  # g52v1: 1 s
        warm = master.call({"cmd": "restart", "kind": "warm"})
        assert (warm["summary"], warm["delay"]) == ("SUCCESS", 50)  # g52v2: 50 ms
        # Waited for, not looked up: the outstation's pipe may lag behind the master's answer.
        assert [(e["kind"], e["mode"]) for e in (outstation.expect("restart") for _ in "cw")] == [
            ("cold", "coarse"),
            ("warm", "fine"),
        ]
        outstation.call({"cmd": "restart_support", "kind": "cold", "mode": "unsupported"})
        refused = master.call({"cmd": "restart", "kind": "cold"})
        assert refused["summary"] == "FAILURE_BAD_RESPONSE"
        # The outstation prints its events on its own pipe, so the refused request may not be
        # in yet when the master's answer is: wait for the second COLD_RESTART (0x0D) itself,
        # then for a response to its sequence that says "function not supported" (IIN2.0).
        refused_seq = [outstation.expect("request", fc=0x0D) for _ in range(2)][-1]["seq"]
        outstation.expect(
            lambda e: e["event"] == "response" and e["seq"] == refused_seq and e["iin"] & 0x0100
        )

        outstation.update("counter", 3, 77)
        assert master.call({"cmd": "freeze", "type": "ImmediateFreeze"})["result"] == "SUCCESS"
        assert outstation.expect("request", fc=0x07)["headers"][0]["group"] == 20
        assert master.scan(classes=[0]).value("frozen_counter", 3)["value"] == 77

        # ASSIGN_CLASS: g60v3 (class 2) then g30v0 all objects (qualifier 06).
        assigned = master.call(
            {"cmd": "perform", "func": "ASSIGN_CLASS", "headers": ["3C0306", "1E0006"]}
        )
        assert assigned["result"] == "SUCCESS"
        assignment = outstation.expect("assign_class")
        assert (assignment["type"], assignment["clazz"], assignment["stop"]) == (
            "AnalogInput",
            "Class2",
            3,
        )
        outstation.update("analog", 0, 5.0)
        assert "analog" not in master.scan(classes=[1]).reply["counts"]
        assert master.scan(classes=[2]).value("analog", 0)["is_event"] is True


def test_restart_brings_the_outstation_back_on_the_same_port() -> None:
    with yadnp3_outstation(points=3) as outstation, yadnp3_master(outstation.port) as master:
        first_pid, port = outstation.pid, outstation.port
        # The first connection's startup ends with ENABLE_UNSOLICITED (refused: this peer does
        # not do unsolicited); after it, no event of the old connection but its end can come.
        master.expect("task", type="ENABLE_UNSOLICITED", timeout=20)
        master.drain()
        outstation.restart()
        assert outstation.pid != first_pid and outstation.port == port
        master.expect("channel", state="CLOSED", timeout=20)
        # The master reconnects (its client may see a connection or two drop while the old
        # process's socket goes away) and finds a freshly restarted device (IIN1.7) again. Ask
        # for scans rather than wait for the stack's own startup tasks: opendnp3 can hold those
        # back for the refused ENABLE_UNSOLICITED's retry back-off, well past any sensible wait
        # (seen on a loaded CI machine).
        deadline = time.monotonic() + 20
        while (result := master.scan().result) != "SUCCESS" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert result == "SUCCESS"
        # Events before the restart are taken (drained): only this connection's IIN can match.
        # opendnp3 reports a response's IIN after completing its task, so it may follow the reply.
        master.expect(lambda e: e["event"] == "iin" and "DEVICE_RESTART" in e["bits"], timeout=20)


@pytest.mark.parametrize("pki_name", ["rsa_pki", "ec_pki"])
def test_tls_scan_and_control(pki_name: str, request: pytest.FixtureRequest) -> None:
    pki: Pki = request.getfixturevalue(pki_name)
    with (
        yadnp3_outstation(points=3, tls=pki) as outstation,
        yadnp3_master(outstation.port, tls=pki) as master,
    ):
        scan = master.scan()
        assert scan.reply["counts"] == dict.fromkeys(YADNP3_TYPES, 3)
        assert master.operate("crob", 1, op_type="LATCH_ON")["summary"] == "SUCCESS"
        assert outstation.expect("operate", index=1)["op_type"] == "LATCH_ON"


def test_tls_outstation_refuses_a_client_certificate_from_another_ca(
    rsa_pki: Pki, stranger_pki: Pki
) -> None:
    with (
        yadnp3_outstation(points=2, tls=rsa_pki) as outstation,
        yadnp3_master(outstation.port, tls=rsa_pki, tls_identity=stranger_pki.client, online=False),
    ):
        failure = outstation.expect(
            lambda e: e["event"] == "log" and "handshake failed" in e["text"], timeout=20
        )
        assert "certificate verify failed" in failure["text"]
        assert outstation.received("request") == []


def test_tls_outstation_requires_a_client_certificate(rsa_pki: Pki) -> None:
    with yadnp3_outstation(points=2, tls=rsa_pki) as outstation:
        context = ssl.create_default_context(cafile=str(rsa_pki.ca))
        with (
            socket.create_connection(("127.0.0.1", outstation.port), timeout=10) as raw,
            pytest.raises((ssl.SSLError, ConnectionError, TimeoutError)),
            context.wrap_socket(raw, server_hostname="localhost") as tls,
        ):
            # Without a certificate of its own the client may finish its half of a TLS 1.3
            # handshake; the server's refusal then arrives as an alert on the first read.
            tls.sendall(bytes.fromhex("0564C0C4000400010000"))  # not reached by the outstation
            tls.recv(16)
        outstation.expect(
            lambda e: e["event"] == "log" and "handshake failed" in e["text"], timeout=20
        )


def test_dnp3py_outstation_scanned_and_controlled_by_yadnp3_master() -> None:
    with (
        dnp3py_outstation(points=6, point_classes=["analog:4:2"]) as outstation,
        # A short response timeout: yadnp3's master waits it out after a no-ack request.
        yadnp3_master(
            outstation.port, time_sync="lan", extra=["--response-timeout-ms", "1000"]
        ) as master,
    ):
        scan = master.scan(classes=[0])
        assert scan.reply["counts"] == dict.fromkeys(DNP3PY_TYPES, 6)
        outstation.update("analog", 4, 1234.0)
        assert master.scan(classes=[0]).value("analog", 4)["value"] == 1234.0
        assert master.scan(classes=[1]).reply["counts"] == {}  # analog 4 is class 2
        assert master.scan(classes=[2]).value("analog", 4)["is_event"] is True
        outstation.update("counter", 3, 55)
        assert master.call({"cmd": "freeze", "type": "FreezeAndClear"})["result"] == "SUCCESS"
        assert outstation.expect("freeze")["clear"] is True
        frozen = master.scan(classes=[0])
        assert (
            frozen.value("frozen_counter", 3)["value"],
            frozen.value("counter", 3)["value"],
        ) == (55, 0)
        reply = master.operate("crob", 5, mode="sbo", op_type="LATCH_OFF", tcc="NUL")
        assert reply["summary"] == "SUCCESS"
        operated = outstation.expect("operate", index=5)
        assert (operated["op_type"], operated["mode"]) == ("LATCH_OFF", "SelectBeforeOperate")
        assert master.operate("float32", 2, value=3.5)["summary"] == "SUCCESS"
        assert outstation.expect("operate", index=2)["kind"] == "float32"
        master.operate("int16", 1, mode="direct_nr", value=300)
        no_ack = outstation.expect("operate", index=1)
        assert (no_ack["kind"], no_ack["value"], no_ack["mode"]) == (
            "int16",
            300,
            "DirectOperateNoAck",
        )
        no_ack_seq = outstation.expect("request", fc=0x06)["seq"]
        master.scan(classes=[0])  # a round trip after it: any answer to it would be out by now
        assert outstation.received("response", seq=no_ack_seq) == []


def test_dnp3py_outstation_takes_lan_time_sync_from_yadnp3_master() -> None:
    with (
        dnp3py_outstation(points=2, need_time=True) as outstation,
        yadnp3_master(outstation.port, time_sync="lan"),
    ):
        written = outstation.expect("time_write", timeout=20)
        assert written["via"] == "g50v3" and abs(written["offset_ms"]) < 5_000
        outstation.expect("request", func="RECORD_CURRENT_TIME")


def test_dnp3py_master_against_yadnp3_outstation() -> None:
    with yadnp3_outstation(points=4) as outstation:
        outstation.update("analog", 2, 21.0, flags=0x01)
        with dnp3py_master(outstation.port) as master:
            scan = master.scan()
            assert scan.result == "SUCCESS"
            assert scan.value("analog", 2)["value"] == 21.0
            assert scan.reply["counts"]["binary"] == 4
            reply = master.operate("crob", 3, mode="sbo", op_type="LATCH_ON")
            assert reply == {
                **reply,
                "summary": "SUCCESS",
                "points": [{"index": 3, "status": "SUCCESS"}],
            }
            outstation.expect("select", index=3)
            assert outstation.expect("operate", index=3)["mode"] == "SelectBeforeOperate"
            assert master.operate("int32", 1, value=-5)["points"] == [
                {"index": 1, "status": "SUCCESS"}
            ]
            assert outstation.expect("operate", index=1)["value"] == -5
            outstation.answer("HARDWARE_ERROR", count=1)
            assert master.operate("crob", 0)["points"] == [{"index": 0, "status": "HARDWARE_ERROR"}]
            assert master.operate("crob", 2, mode="direct_nr", op_type="LATCH_OFF")["sent"] is True
            no_ack = outstation.expect("operate", index=2)
            assert (no_ack["op_type"], no_ack["mode"]) == ("LATCH_OFF", "DirectOperateNoAck")


def test_benchmark_mode_prints_figures() -> None:
    # DatabaseConfig(1000): 1000 points of each of the nine types, 9000 in all.
    with yadnp3_outstation(points=1000) as outstation:
        figures = yadnp3_bench(outstation.port, polls=20)
    assert figures["event"] == "bench", figures
    assert figures["polls"] == 20
    assert figures["fragments"] == 18  # 2048-octet fragments
    assert 0 < figures["min_ms"] <= figures["median_ms"] <= figures["p90_ms"] <= figures["max_ms"]


def test_expect_fails_at_once_when_the_peer_exits() -> None:
    with yadnp3_outstation(points=1) as outstation:
        outstation.send({"cmd": "quit"})
        with pytest.raises(PeerError, match="exited before printing"):
            outstation.expect("never-printed", timeout=60)


def test_refused_command_raises() -> None:
    with yadnp3_outstation(points=1) as outstation:
        with pytest.raises(PeerError, match="octet_string"):
            outstation.update("octet_string", 0, "00")
        with pytest.raises(PeerError, match="unknown command"):
            outstation.call({"cmd": "no-such-command"})


def test_lines_that_are_not_json_are_kept_as_text() -> None:
    peer = Peer("yadnp3_outstation", [], 0)
    lines = subprocess.Popen(
        ["printf", '{"event": "ready"}\\nnot json\\n[1, 2]\\n'], stdout=subprocess.PIPE, text=True
    )
    peer._read_stdout(lines, peer.generation)
    assert peer.events == [
        {"event": "ready"},
        {"event": "text", "text": "not json"},
        {"event": "text", "text": "[1, 2]"},
    ]
    assert peer.expect("ready") == {"event": "ready"}
