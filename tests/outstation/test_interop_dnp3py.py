"""gridwire's outstation read and commanded by dnp3py's master (pure Python, a third party),
over real loopback sockets: proves interoperation with dnp3py's master."""

from __future__ import annotations

import pytest

from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.database import Database
from tests.outstation.peer_names import PEER_TYPES
from tests.outstation.serving import serving
from tests.support.peers import dnp3py_master
from tests.support.waiting import eventually

pytestmark = pytest.mark.interop


def _database(count: int) -> Database:
    db = Database(DeviceClock())
    for index in range(count):
        db.add("bi", index, index % 2 == 0)
        db.add("dbi", index, 2)
        db.add("bo", index, False)
        db.add("counter", index, 500 + index)
        db.add("frozen", index, 600 + index)
        db.add("ai", index, 10 * index - 3)
        db.add("ao", index, index)
    return db


def test_integrity_scan_sees_every_point() -> None:
    db = _database(25)
    with serving(db) as served, dnp3py_master(served.port) as master:
        scan = master.scan()
        assert scan.result == "SUCCESS", scan.reply
        assert scan.reply["counts"] == {name: 25 for name in PEER_TYPES.values()}
        for index in range(25):
            assert scan.value("binary", index)["value"] is (index % 2 == 0)
            assert scan.value("counter", index)["value"] == 500 + index
            assert scan.value("frozen_counter", index)["value"] == 600 + index
            assert scan.value("analog", index)["value"] == 10 * index - 3
            assert scan.value("analog_output_status", index)["value"] == index
            assert scan.value("double_bit", index)["value"] == "ON"  # dnp3py: DETERMINED_ON


def test_multi_fragment_scan_and_events() -> None:
    db = _database(600)
    with serving(db) as served, dnp3py_master(served.port) as master:
        scan = master.scan()
        assert scan.result == "SUCCESS" and scan.reply["fragments"] > 1, scan.reply
        assert scan.reply["counts"]["analog"] == 600
        served.call(lambda: db.update("ai", 3, 4242, now=served.now()))
        served.call(lambda: db.update("bi", 7, True, now=served.now()))
        events = master.scan(classes=[1, 2, 3])
        assert events.value("analog", 3)["value"] == 4242
        assert events.value("binary", 7)["value"] is True
        # dnp3py's master confirms event responses (perhaps after its reply to the harness):
        # the events are retired.
        assert eventually(lambda: served.call(lambda: len(db.events)) == 0)


def test_controls() -> None:
    db = _database(3)
    with serving(db) as served, dnp3py_master(served.port) as master:
        reply = master.operate("crob", 1, mode="direct", op_type="LATCH_ON")
        assert reply["points"] == [{"index": 1, "status": "SUCCESS"}]
        assert served.call(lambda: db.get("bo", 1).value) is True
        reply = master.operate("crob", 1, mode="sbo", op_type="LATCH_OFF")
        assert reply["points"] == [{"index": 1, "status": "SUCCESS"}]
        assert served.call(lambda: db.get("bo", 1).value) is False
        reply = master.operate("int32", 2, mode="sbo", value=-77)
        assert reply["summary"] == "SUCCESS"
        assert served.call(lambda: db.get("ao", 2).value) == -77
        reply = master.operate("int32", 8, mode="direct", value=1)
        assert reply["points"] == [{"index": 8, "status": "NOT_SUPPORTED"}]
        assert master.operate("crob", 0, mode="direct_nr", op_type="LATCH_ON")["sent"]
        scan = master.scan(classes=[0])
        assert scan.value("binary_output_status", 0)["value"] is True
