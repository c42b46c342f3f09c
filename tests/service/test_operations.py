"""Every operation of issue 4 through the service's sockets, over HTTP and over the line
service, against yadnp3's outstation (opendnp3, a subprocess): what the service answered,
checked against what yadnp3 says it received and against request octets worked out by hand
from IEEE 1815-2012 (function codes, group/variation, qualifier, range)."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

from gridwire.outstation.server import run_outstation
from gridwire.simulator.der import SimulatedDer
from tests.capture.tshark_checks import assert_clean, fields
from tests.service.harness import Running, Transport, error, ok, outstation, running_service
from tests.service.harness import transport as open_transport
from tests.support.certs import make_pki
from tests.support.peers import OutstationPeer, yadnp3_outstation

pytestmark = pytest.mark.interop

POINTS = 5
TYPES = 9  # yadnp3 serves POINTS of each of its nine types
TRANSPORTS = ["http", "line"]


def spaced(hex_text: str) -> str:
    """Hexadecimal text as yadnp3's request log prints it: octets apart, upper case."""
    return " ".join(hex_text[i : i + 2] for i in range(0, len(hex_text), 2)).upper()


async def settle(api: Transport) -> None:
    ok(await api.call("idle", "y"))


async def reads(api: Transport, peer: OutstationPeer) -> None:
    # READ (0x01) of class 1, 2, 3 then 0: g60v2, g60v3, g60v4, g60v1, each qualifier 0x06.
    scan = ok(await api.call("scan", "y", kind="integrity"))
    assert scan["outcome"] == "complete" and scan["function"] == "READ"
    assert scan["request"][2:] == "013c02063c03063c04063c0106"
    assert sum(1 for o in scan["objects"] if not o["event"]) == POINTS * TYPES
    # READ of g30v0 (1e 00), qualifier 0x00 (one-octet start and stop), 1..2.
    read = ok(await api.call("read", "y", points={"ai": ["1-2"]}))
    assert read["request"][2:] == "011e00000102"
    assert [(o["type"], o["index"]) for o in read["objects"]] == [("ai", 1), ("ai", 2)]
    # yadnp3 decoded the same octets the service says it sent.
    await asyncio.to_thread(peer.expect, "request", hex=spaced(read["request"]))
    await asyncio.to_thread(peer.update, "analog", 3, 42, flags=1)
    events = ok(await api.call("scan", "y", kind="events"))
    assert [(o["type"], o["index"], o["value"]) for o in events["objects"]] == [("ai", 3, 42)]
    values = ok(await api.call("values", "y"))["values"]
    stored = [v for v in values if (v["type"], v["index"]) == ("ai", 3)]
    assert [(v["value"], v["event"], v["group"]) for v in stored] == [(42, True, 32)]
    logged = ok(await api.call("events", "y"))["events"]
    assert any(e["type"] == "ai" and e["index"] == 3 and e["value"] == 42 for e in logged)


async def waits(api: Transport) -> None:
    held = ok(
        await api.call("wait_for", "y", timeout=1, value={"type": "ai", "index": 3, "equals": 42})
    )
    assert held["held"] is True and held["point"]["value"] == 42
    missed = ok(
        await api.call(
            "wait_for", "y", timeout=0.2, value={"type": "ai", "index": 3, "at_least": 43}
        )
    )
    assert missed["held"] is False and missed["elapsed_ms"] >= 150
    quiet = ok(await api.call("wait_for", "y", timeout=0.2, event={"type": "ai"}))
    assert quiet["held"] is False and quiet["events"] == []
    clear = ok(
        await api.call("wait_for", "y", timeout=1, indication={"name": "NEED_TIME", "set": False})
    )
    assert clear["held"] is True


async def requests(api: Transport, peer: OutstationPeer) -> None:
    # READ of class 0 given as object data: g60v1 qualifier 0x06.
    answer = ok(await api.call("request", "y", function="READ", body="3c0106"))
    assert answer["request"][2:] == "013c0106" and answer["object_count"] == POINTS * TYPES
    # ENABLE_UNSOLICITED (0x14) / DISABLE_UNSOLICITED (0x15) of class 1: g60v2 qualifier 0x06.
    enabled = ok(await api.call("enable_unsolicited", "y", classes=[1]))
    assert enabled["request"][2:] == "143c0206" and enabled["outcome"] == "complete"
    disabled = ok(await api.call("disable_unsolicited", "y", classes=[1]))
    assert disabled["request"][2:] == "153c0206"
    sent = ok(
        await api.call(
            "broadcast", "y", function="DISABLE_UNSOLICITED", body="3c0206", address="no_confirm"
        )
    )
    assert sent["outcome"] == "sent" and sent["broadcast"] == 0xFFFD
    assert sent["request"][2:] == "153c0206"


async def commands(api: Transport, peer: OutstationPeer) -> None:
    # DIRECT_OPERATE (0x05) g12v1, qualifier 0x17 (one-octet count and index): count 1,
    # index 1, control code 0x03 (LATCH_ON), count 1, on 100 ms, off 100 ms, status 0.
    operated = ok(await api.call("operate", "y", points={"bo": {"1": True}}))
    assert operated["accepted"] is True and operated["statuses"][0]["status"] == "SUCCESS"
    assert operated["exchanges"][0]["request"][2:] == "050c011701010301640000006400000000"
    await asyncio.to_thread(peer.expect, "operate", index=1, status="SUCCESS")
    analog = ok(await api.call("operate", "y", points={"ao": {"2": 12.5}}, mode="select"))
    assert [e["function"] for e in analog["exchanges"]] == ["SELECT", "OPERATE"]
    await asyncio.to_thread(peer.expect, "select", index=2)
    # WRITE (0x02) g50v1 qualifier 0x07, one object: the time.
    written = ok(await api.call("write_time", "y"))
    assert written["request"][2:12] == "0232010701"
    await asyncio.to_thread(peer.expect, "time_write", via="g50v1")
    synced = ok(await api.call("synchronize_time", "y", procedure="lan"))
    assert synced["written"] is True and synced["accepted"] is True
    assert [e["function"] for e in synced["exchanges"]] == ["RECORD_CURRENT_TIME", "WRITE"]
    await asyncio.to_thread(peer.expect, "time_write", via="g50v3")
    # WRITE g80v1, qualifier 0x00, 7..7, one packed bit 0: clears DEVICE_RESTART.
    cleared = ok(await api.call("clear_restart", "y"))
    assert cleared["request"][2:] == "02500100070700"
    assert "DEVICE_RESTART" not in cleared["indications"]
    # IMMED_FREEZE (0x07) of g20v0, qualifier 0x06.
    frozen = ok(await api.call("freeze", "y"))
    assert frozen["request"][2:] == "07140006" and frozen["outcome"] == "complete"
    await asyncio.to_thread(peer.expect, "request", hex=spaced(frozen["request"]))
    restarted = ok(await api.call("restart", "y", kind="warm"))  # WARM_RESTART (0x0e)
    assert restarted["request"][2:] == "0e" and restarted["outcome"] == "complete"
    await asyncio.to_thread(peer.expect, "restart", kind="warm")


async def schedules(api: Transport) -> None:
    on = ok(await api.call("repeat", "y", kind="events", interval=0.5))
    assert on == {"schedules": {"events": 0.5}}
    status = ok(await api.call("status"))["outstations"][0]
    assert status["schedules"] == {"events": 0.5}
    assert ok(await api.call("repeat", "y", kind="events")) == {"schedules": {}}
    tasks = ok(await api.call("set_tasks", "y", tasks={"events_when_indicated": False}))
    assert tasks["events_when_indicated"] is False and tasks["startup"] is True
    deviations = ok(await api.call("deviate", "y", deviations={"late_confirmation": 2}))
    assert deviations == {"deviations": {"late_confirmation": 2.0}}
    assert ok(await api.call("deviate", "y", deviations={"late_confirmation": False})) == {
        "deviations": {}
    }


# The capture (after the first frame, the startup's integrity READ), as tshark reads it: DNP3
# function codes of IEEE 1815-2012 Table 4-1 (00 CONFIRM, 01 READ, 02 WRITE, 03 SELECT,
# 04 OPERATE, 05 DIRECT_OPERATE, 07 IMMED_FREEZE, 0E WARM_RESTART, 14 ENABLE_UNSOLICITED,
# 15 DISABLE_UNSOLICITED, 18 RECORD_CURRENT_TIME, 81 RESPONSE), as (DIR, destination,
# function) with DIR 1 from the master (to 1024, or to the broadcast address 0xFFFD = 65533)
# and 0 from the outstation (to 1). In the order the operations above ask them.
TO, BROADCAST, BACK = ("1", "1024"), ("1", "65533"), ("0", "1")
CAPTURED = [
    (*BACK, "129"),  # the startup integrity poll's answer, with IIN1.7 DEVICE_RESTART
    (*TO, "2"), (*BACK, "129"),  # the startup clears DEVICE_RESTART (WRITE g80v1)
    (*TO, "1"), (*BACK, "129"),  # scan integrity
    (*TO, "1"), (*BACK, "129"),  # read ai 1-2
    (*TO, "1"), (*BACK, "129"), (*TO, "0"),  # scan events: an event, confirmed
    (*TO, "1"), (*BACK, "129"),  # request READ class 0
    (*TO, "20"), (*BACK, "129"),
    (*TO, "21"), (*BACK, "129"),
    (*BROADCAST, "21"),  # broadcast, no confirm: nothing answers
    (*TO, "5"), (*BACK, "129"),  # operate bo 1
    (*TO, "3"), (*BACK, "129"), (*TO, "4"), (*BACK, "129"),  # ao 2, select then operate
    (*TO, "2"), (*BACK, "129"),  # write_time (g50v1)
    (*TO, "24"), (*BACK, "129"), (*TO, "2"), (*BACK, "129"),  # synchronize_time lan (g50v3)
    (*TO, "2"), (*BACK, "129"),  # clear_restart
    (*TO, "7"), (*BACK, "129"),  # freeze
    (*TO, "14"), (*BACK, "129"),  # restart warm
]  # fmt: skip
# Then only the event polls of the schedule turned on and off again, and what a restart brings
# about: READ, its answer and confirm, a WRITE clearing DEVICE_RESTART.
AFTERWARDS = {(*TO, "1"), (*BACK, "129"), (*TO, "0"), (*TO, "2")}
# tshark 4.0 does not know g50v4 (Time and interval, 0x3204; see
# tests/dnp3/test_objects_tshark.py), which yadnp3 serves in class 0: it reads the object as
# unknown (an expert warning) and the rest of the answer as malformed. The three class 0
# answers (startup, scan integrity, READ class 0) must be the only ones so marked.
CLASS0_ANSWERS = 3


def read_by_tshark(path: Path, port: int, frames: int) -> None:
    """tshark reads the capture of ``frames`` DNP3 frames as one clean TCP connection: a
    packet per frame after the handshake, checksums good, nothing malformed but the class 0
    answers, nothing warned of but those and two refusals, and the function codes
    :data:`CAPTURED` then only :data:`AFTERWARDS`."""
    names = ["frame.number", "dnp3.ctl.dir", "dnp3.dst", "dnp3.al.func", "dnp3.al.obj"]
    rows = fields(path, port, [*names, "dnp3.al.iin.fcni", "tcp.dstport"], "dnp3")
    assert len(rows) == frames
    # each frame on its side of the connection: DIR 1 (from the master) to the outstation's port
    assert all((row[1] == "1") is (row[6] == str(port)) for row in rows), rows
    with_g50v4 = tuple(int(row[0]) for row in rows if "0x3204" in row[4].split(","))
    assert len(with_g50v4) == CLASS0_ANSWERS, rows
    # yadnp3, started without unsolicited, answers ENABLE/DISABLE_UNSOLICITED with IIN2.0
    # (function code not implemented), which tshark warns of: only those two answers.
    refused = [k for k, row in enumerate(rows) if row[5] == "1"]
    assert [rows[k - 1][3] for k in refused] == ["20", "21"], rows
    warned = tuple(int(rows[k][0]) for k in refused)
    assert_clean(path, port, packets=3 + frames, warned=warned, malformed=with_g50v4)
    functions = [(row[1], row[2], row[3]) for row in rows]
    assert functions[: len(CAPTURED)] == CAPTURED
    assert set(functions[len(CAPTURED) :]) <= AFTERWARDS, functions


async def frames(api: Transport, peer: OutstationPeer, tmp_path: Path) -> None:
    trace = ok(await api.call("trace", "y"))["frames"]
    assert trace and {f["direction"] for f in trace} == {"sent", "received"}
    last = trace[-1]["id"]
    # `after` keeps only frames newer than `last`. A late answer to the scan the ended
    # schedule abandoned may arrive in between, so newer frames may be there; none older.
    later = ok(await api.call("trace", "y", after=last))["frames"]
    assert [f["id"] for f in later] == sorted(f["id"] for f in later if f["id"] > last)
    capture = ok(await api.call("capture", "y", after=trace[0]["id"]))
    pcap = base64.b64decode(capture["pcap"])
    assert pcap[:4] == bytes.fromhex("d4c3b2a1")  # classic pcap, little-endian
    # A late answer (the scan the ended schedule abandoned) may still add frames meanwhile.
    assert capture["frames"] >= len(trace) - 1
    path = tmp_path / f"capture-{api.name}.pcap"
    path.write_bytes(pcap)
    await asyncio.to_thread(read_by_tshark, path, peer.port, capture["frames"])
    cleared = ok(await api.call("clear", "y", what="frames"))
    assert cleared["what"] == "frames" and cleared["cleared"] >= len(trace)
    assert all(f["id"] > last for f in ok(await api.call("trace", "y"))["frames"])
    assert ok(await api.call("clear", "y", what="events"))["cleared"] >= 1
    assert ok(await api.call("events", "y"))["events"] == []


async def connection(api: Transport, running: Running) -> None:
    assert "was given no profile" in error(await api.call("profile", "y"), "request")
    down = ok(await api.call("disconnect", "y"))
    assert down["state"] == "disconnected" and down["connected"] is False
    error(await api.call("scan", "y", kind="class0"), "connection")
    up = ok(await api.call("connect", "y", wait=5))
    assert up["connected"] is True
    removed = ok(await api.call("remove", "y"))
    assert removed["name"] == "y"
    assert ok(await api.call("status")) == {
        "allow_control": True,
        "outstations": [],
        "total": 0,
        "offset": 0,
        "next": None,
        "summary": {"connected": 0, "connecting": 0, "disconnected": 0},
        "channels": [],
    }
    assert "unknown outstation 'y'" in error(await api.call("values", "y"), "request")


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_every_operation(kind: str, tshark: None, tmp_path: Path) -> None:
    with yadnp3_outstation(points=POINTS) as peer:
        async with (
            running_service(allow_control=True) as running,
            open_transport(kind, running) as api,
        ):
            added = ok(await api.call("add", **outstation(peer.port).model_dump(mode="json")))
            assert added["name"] == "y" and added["connected"] is True
            status = ok(await api.call("status"))
            assert status["allow_control"] is True
            assert [o["name"] for o in status["outstations"]] == ["y"]
            await settle(api)
            await reads(api, peer)
            await waits(api)
            await requests(api, peer)
            await commands(api, peer)
            await schedules(api)
            await frames(api, peer, tmp_path)
            await connection(api, running)


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_profile_of_the_simulated_der(kind: str) -> None:
    """``profile`` lists the points of the map the outstation serves (here the simulated DER
    serving the built-in demo map, in the profile's numbering) and names what is read."""
    async with (
        run_outstation(SimulatedDer(), "127.0.0.1", 0) as der,
        running_service() as running,
        open_transport(kind, running) as api,
    ):
        settings = outstation(der.port, name="der", profile="ieee1815.2")
        ok(await api.call("add", **settings.model_dump(mode="json")))
        profile = ok(await api.call("profile", "der"))
        assert set(profile) >= {"title", "bi", "bo", "counter", "frozen", "ai", "ao"}
        points = {p["index"]: p for p in profile["ai"]}
        # AI1 lists its values in its name: "<1> Level 1 <2> Level 2 <3> Level 3".
        assert points[1]["label"] == "Profile implementation level"
        assert points[1]["enumeration"] == [
            {"value": 1, "name": "Level 1"},
            {"value": 2, "name": "Level 2"},
            {"value": 3, "name": "Level 3"},
        ]
        assert points[537]["name"] == "System meter active power"
        assert points[537]["mandatory"] is True and points[537]["enumeration"] is None
        scan = ok(await api.call("scan", "der", kind="class0"))
        named = {(o["type"], o["index"]): o["name"] for o in scan["objects"]}
        assert named[("ai", 537)] == "System meter active power"
        unknown = error(
            await api.call(
                "add",
                **outstation(der.port, name="x", profile="iec61850").model_dump(mode="json"),
            ),
            "request",
        )
        assert "unknown profile 'iec61850'" in unknown


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_add_with_every_setting_over_tls(kind: str, tmp_path: Path) -> None:
    """``add`` with tls, manual, confirm, reconnect, read_retries and tasks, against yadnp3
    over TLS (it requires our client certificate); the status shows each as given."""
    pki = make_pki(tmp_path)
    tls = {
        "ca": str(pki.ca),
        "certificate": str(pki.client.certificate),
        "key": str(pki.client.key),
        "server_name": "localhost",
    }
    with yadnp3_outstation(points=2, tls=pki) as peer:
        async with running_service() as running, open_transport(kind, running) as api:
            added = ok(
                await api.call(
                    "add",
                    name="t",
                    host="127.0.0.1",
                    port=peer.port,
                    tls=tls,
                    manual=True,
                    confirm=True,
                    reconnect=None,
                    read_retries=2,
                    tasks={"startup": True},
                )
            )
            assert added["connected"] is True and added["tls"] is True
            assert (added["manual"], added["confirm"]) == (True, True)
            assert (added["reconnect"], added["read_retries"]) == (None, 2)
            # manual turns every task off; the task given beside it is kept as given.
            assert {name for name, on in added["tasks"].items() if on} == {"startup"}
            scan = ok(await api.call("scan", "t", kind="integrity"))
            assert scan["outcome"] == "complete" and scan["object_count"] >= 2 * TYPES
            wrong = {**tls, "ca": str(tmp_path / "missing.pem")}
            refused = await api.call("add", name="u", host="127.0.0.1", port=peer.port, tls=wrong)
            # TLS files that cannot be used are a wrong parameter of add: a request error,
            # and nothing is added.
            # The one-line error of every side's TLS files (tests/test_tls_files.py).
            assert error(refused, "request") == f"tls.ca {tmp_path / 'missing.pem'}: no such file"
            listed = ok(await api.call("status"))["outstations"]
            assert [o["name"] for o in listed] == ["t"]
