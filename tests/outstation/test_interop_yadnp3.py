"""gridwire's outstation read and commanded by yadnp3's master (opendnp3, a third party), over
real loopback sockets: proves interoperation with opendnp3's master."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import NameOID

from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.points import POINT_TYPES
from gridwire.outstation.tls import TlsSettings
from tests.outstation.peer_names import PEER_TYPES
from tests.outstation.serving import loopback_capture, serving
from tests.support.certs import make_pki
from tests.support.peers import yadnp3_master
from tests.support.tshark import tshark_fields
from tests.support.waiting import eventually

pytestmark = pytest.mark.interop

DOUBLE_BIT = ["INTERMEDIATE", "DETERMINED_OFF", "DETERMINED_ON", "INDETERMINATE"]


def _database(count: int) -> Database:
    """``count`` points of every type, each with a value of its own."""
    db = Database(DeviceClock())
    for index in range(count):
        db.add("bi", index, index % 2 == 1)
        db.add("dbi", index, index % 4)
        db.add("bo", index, index % 3 == 0)
        db.add("counter", index, 1000 + index)
        db.add("frozen", index, 2000 + index)
        db.add("ai", index, -50 + index)
        db.add("ao", index, 7 * index)
    return db


def _expected(point_type: str, value: object) -> object:
    if point_type == "dbi":
        return DOUBLE_BIT[int(value)]  # type: ignore[call-overload]
    if point_type in ("ai", "ao"):
        return float(value)  # type: ignore[arg-type]
    return value


def test_integrity_scan_sees_every_point() -> None:
    db = _database(40)
    with serving(db) as served, yadnp3_master(served.port) as master:
        scan = master.scan()
        assert scan.result == "SUCCESS"
        assert scan.reply["counts"] == {PEER_TYPES[t]: 40 for t in POINT_TYPES}
        for point_type in POINT_TYPES:
            for point in db.points(point_type):
                got = scan.value(PEER_TYPES[point_type], point.index)
                assert got["value"] == _expected(point_type, point.value), (point_type, got)
                assert got["flags"] & 0x01  # ONLINE


def test_multi_fragment_integrity_scan() -> None:
    # 700 points of every type do not fit one 2048-octet fragment.
    db = _database(700)
    with serving(db) as served, yadnp3_master(served.port, quiet=True) as master:
        scan = master.scan(values=False)
        assert scan.result == "SUCCESS"
        assert scan.reply["fragments"] > 1
        assert scan.reply["counts"] == {PEER_TYPES[t]: 700 for t in POINT_TYPES}


def test_events_polled_and_unsolicited() -> None:
    db = Database(DeviceClock())
    db.add("ai", 0, 0, event_class=2)
    db.add("bi", 0, False, event_class=1)
    config = OutstationConfig(unsolicited=True)
    with serving(db, config=config) as served, yadnp3_master(served.port) as master:
        # opendnp3's master confirms the null unsolicited response and enables unsolicited
        # reporting of classes 1-3 at startup: a change now arrives without a poll.
        served.call(lambda: db.update("ai", 0, 1234, now=served.now()))
        event = master.expect("value", type="analog", index=0, unsolicited=True, timeout=20)
        assert event["value"] == 1234.0 and event["is_event"]
        served.call(lambda: db.update("bi", 0, True, now=served.now()))
        event = master.expect("value", type="binary", index=0, unsolicited=True, timeout=20)
        assert event["value"] is True and event["gv"] == "Group2Var2"
        # Every event was confirmed (the confirm may follow the master's callback) and retired.
        assert eventually(lambda: served.call(lambda: len(db.events)) == 0)


def test_controls_in_every_mode() -> None:
    db = _database(4)
    with serving(db) as served, yadnp3_master(served.port) as master:
        reply = master.operate("crob", 1, mode="direct", op_type="LATCH_ON")
        assert reply["summary"] == "SUCCESS"
        assert db.get("bo", 1).value is True
        reply = master.operate("crob", 1, mode="sbo", op_type="LATCH_OFF")
        assert reply["summary"] == "SUCCESS" and db.get("bo", 1).value is False
        cases = [("int16", -300), ("int32", 123456), ("float32", 2.5), ("double64", -0.125)]
        for index, (kind, value) in enumerate(cases):
            for mode in ("direct", "sbo"):
                reply = master.operate(kind, index, mode=mode, value=value)
                assert reply["points"][0]["status"] == "SUCCESS", (kind, mode, reply)
                assert math.isclose(db.get("ao", index).value, value)
        # A control for an output that does not exist comes back NOT_SUPPORTED.
        reply = master.operate("crob", 9, mode="direct", op_type="LATCH_ON")
        assert reply["points"][0]["status"] == "NOT_SUPPORTED"
        reply = master.operate("crob", 9, mode="sbo", op_type="LATCH_ON")
        assert reply["points"][0]["status"] == "NOT_SUPPORTED"
        # Last (yadnp3's master then waits its response timeout before its next task): a
        # direct operate without acknowledgment is carried out, and no response is sent.
        master.operate("int32", 3, mode="direct_nr", value=99)
        assert eventually(lambda: served.call(lambda: db.get("ao", 3).value) == 99)


def test_restarts_freeze_and_time_sync() -> None:
    db = _database(3)
    with serving(db) as served, yadnp3_master(served.port, time_sync="lan") as master:
        # opendnp3 answers NEED_TIME with the LAN procedure (RECORD_CURRENT_TIME, then g50v3),
        # which sets the device's clock to the master's.
        assert eventually(lambda: served.call(lambda: db.clock.synchronized))
        offset = served.call(lambda: db.clock.ms(served.now())) - time.time() * 1000
        assert abs(offset) < 1000
        reply = master.call({"cmd": "freeze", "type": "ImmediateFreeze"})
        assert reply["result"] == "SUCCESS"
        assert db.get("frozen", 2).value == 1002
        # The delays our g52 objects carry, as the peer reports them: the number sent, in
        # its object's unit (yadnp3 does not convert g52v1 seconds). Warm: g52v2, 500 ms.
        # Cold: g52v1, 2 s, so 2 (2000 would be milliseconds put in a count of seconds).
        warm = master.call({"cmd": "restart", "kind": "warm"})
        assert (warm["summary"], warm["delay"]) == ("SUCCESS", 500)
        cold = master.call({"cmd": "restart", "kind": "cold"})
        assert (cold["summary"], cold["delay"]) == ("SUCCESS", 2)
        assert db.get("counter", 2).value == 1002  # a cold restart restores starting values


def _client_identity(path: Path) -> tuple[str, str]:
    certificate = x509.load_pem_x509_certificate(path.read_bytes())
    name = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    fingerprint = certificate.fingerprint(hashes.SHA256()).hex(":").upper()
    return str(name), fingerprint


def test_tls_with_allow_list(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    name, fingerprint = _client_identity(pki.client.certificate)
    server = {"ca": pki.ca, "certificate": pki.server.certificate, "key": pki.server.key}
    # Let in by common name, then by SHA-256 fingerprint (with colons, upper case).
    for allow in ((name,), (fingerprint,)):
        with (
            serving(_database(2), tls=TlsSettings(**server, allow=allow)) as served,
            yadnp3_master(served.port, tls=pki) as master,
        ):
            assert master.scan().result == "SUCCESS"
    # Not on the list: the connection is closed as soon as the handshake is done.
    with (
        serving(_database(2), tls=TlsSettings(**server, allow=("someone else",))) as served,
        yadnp3_master(served.port, tls=pki, online=False) as master,
    ):
        master.expect("channel", state="CLOSED", timeout=20)
        assert served.server.refused >= 1 and served.server.connections == 0
    # A client certificate from another CA (the master trusts ours) fails the handshake.
    other = make_pki(tmp_path / "other")
    with (
        serving(_database(2), tls=TlsSettings(**server)) as served,
        yadnp3_master(served.port, tls=pki, tls_identity=other.client, online=False) as master,
    ):
        master.expect(_failed_connection, timeout=20)
        assert served.server.connections == 0


def _failed_connection(event: dict[str, object]) -> bool:
    if event.get("event") == "channel":
        return event.get("state") == "CLOSED"
    return event.get("event") == "log" and "Error" in str(event.get("text"))


def test_tshark_reads_what_the_outstation_sent(tmp_path: Path) -> None:
    db = _database(300)
    with serving(db) as served:
        pcap = tmp_path / "session.pcap"
        with loopback_capture(served.port, pcap), yadnp3_master(served.port) as master:
            master.scan()
            master.operate("crob", 1, mode="sbo", op_type="LATCH_ON")
            master.operate("float32", 2, mode="direct", value=1.5)
            served.call(lambda: db.update("ai", 5, 777, now=served.now()))
            master.scan(classes=[1, 2, 3])
    sent = f"tcp.srcport=={served.port} && tcp.len>0"
    rows = tshark_fields(pcap, served.port, ["frame.number", "dnp3.al.func"], sent)
    assert rows, "no outstation frames captured"
    assert {r[1] for r in rows if r[1]} <= {"129", "130"}  # RESPONSE, UNSOLICITED_RESPONSE
    assert tshark_fields(pcap, served.port, ["frame.number"], f"{sent} && _ws.malformed") == []
    assert tshark_fields(pcap, served.port, ["frame.number"], f"{sent} && !dnp3") == []
    statuses = tshark_fields(
        pcap, served.port, ["dnp3.al.ctrlstatus"], f"{sent} && dnp3.al.ctrlstatus"
    )
    assert statuses and all(set(r[0].split(",")) == {"0"} for r in statuses)
    floats = tshark_fields(
        pcap, served.port, ["dnp3.al.anaout.float"], f"{sent} && dnp3.al.anaout.float"
    )
    assert floats == [["1.5"]]


def test_need_time_bit_seen_by_the_master() -> None:
    with serving(_database(1)) as served, yadnp3_master(served.port) as master:
        # The first response (to the master's DISABLE_UNSOLICITED) carries NEED_TIME (IIN1.4)
        # and DEVICE_RESTART (IIN1.7), as opendnp3 names them.
        event = master.expect("iin", timeout=20)
        assert {"NEED_TIME", "DEVICE_RESTART"} <= set(event["bits"])
