"""The ``Master`` facade: its errors, the control gate, broadcast, schedules, status, the
capture file, and what it forgets; against the scripted outstation (literal octets) and,
for captures, tshark."""

from __future__ import annotations

import asyncio
import base64
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from gridwire.errors import ConnectionFailed, NotAllowed, RequestError
from gridwire.master import Master, OutstationSettings
from gridwire.master.bus import Subscriber
from tests.master.scripted import ScriptedOutstation, response
from tests.master.wire import INTEGRITY, frame
from tests.support.net import free_port
from tests.support.tshark import tshark_fields

CLASS0 = bytes.fromhex("3c 01 06")


def settings(port: int, **fields: Any) -> OutstationSettings:
    values: dict[str, Any] = {"manual": True, "reconnect": None, "response_timeout": 2.0}
    values.update(fields)
    return OutstationSettings(name="s", host="127.0.0.1", port=port, **values)


def drain(sub: Subscriber) -> list[tuple[str, dict[str, Any]]]:
    out = []
    while (update := sub.get_nowait()) is not None:
        out.append(update)
    return out


def assert_spaced(arrived: list[float], interval: float) -> None:
    """Scans that arrived at ``arrived`` (loop seconds) came every ``interval`` seconds.

    The schedule keeps its beat: scan k leaves no sooner than ``interval`` * k after the first
    left, so the span from the first to the last is at least that (50 ms allowed for the
    first leaving late). One scan that leaves late shortens the gap after it, so a single
    gap is only held to 60% of the interval; the upper bound leaves room for a loaded
    machine. Scans sent as soon as the last was answered come a few milliseconds apart."""
    gaps = [later - earlier for earlier, later in pairwise(arrived)]
    assert all(0.6 * interval <= gap <= 1.5 for gap in gaps), gaps
    assert arrived[-1] - arrived[0] >= interval * len(gaps) - 0.05, gaps


async def test_unknown_outstation_is_a_request_error_naming_it() -> None:
    master = Master()
    with pytest.raises(RequestError, match="'nobody'"):
        await master.scan("nobody", "integrity")
    with pytest.raises(RequestError, match="'nobody'"):
        master.values("nobody")
    with pytest.raises(RequestError, match="'nobody'"):
        await master.remove("nobody")
    await master.close()


async def test_add_status_remove_and_the_outstations_event() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        sub = master.bus.subscribe()
        status = await master.add(settings(out.port))
        assert (status.name, status.state, status.connected) == ("s", "connected", True)
        assert status.tasks["startup"] is False  # manual
        assert status.reconnect is None and status.tasks_due == []
        assert master.status().allow_control is False
        with pytest.raises(RequestError, match="already added"):
            await master.add(settings(out.port))
        removed = await master.remove("s")
        assert removed.state == "disconnected"
        assert master.status().outstations == []
        events = [e for e, _ in drain(sub)]
        assert events == ["outstations", "connection", "connection", "outstations"]
        await master.close()


async def test_a_writing_task_without_control_is_refused_and_nothing_is_added() -> None:
    master = Master()
    with pytest.raises(NotAllowed):
        await master.add(settings(free_port(), tasks={"write_time": True}))
    assert master.status().outstations == []
    await master.close()


async def test_commands_are_refused_without_control_and_nothing_is_sent() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        await master.add(settings(out.port))
        for call in (
            master.operate("s", {"bo": {"0": True}}),
            master.write_time("s"),
            master.synchronize_time("s", "non_lan"),
            master.clear_restart("s"),
            master.freeze("s"),
            master.restart("s", "warm"),
            master.request("s", "WRITE", b""),
            master.request("s", "CONFIRM", b""),
            master.broadcast("s", "DIRECT_OPERATE", b""),
            master.broadcast("s", "CONFIRM", b""),
        ):
            with pytest.raises(NotAllowed):
                await call
        with pytest.raises(NotAllowed):
            master.set_tasks("s", {"clear_restart": True})
        assert await out.no_frame(0.3)
        await master.close()


async def test_not_connected_and_bad_arguments() -> None:
    port = free_port()
    master = Master()
    with pytest.raises(ConnectionFailed, match="cannot connect"):
        await master.add(settings(port))
    assert master.status().outstations[0].last_error is not None
    with pytest.raises(ConnectionFailed):
        await master.scan("s", "integrity")
    with pytest.raises(RequestError, match="scan kind"):
        await master.scan("s", "everything")
    with pytest.raises(RequestError, match="unknown function code"):
        await master.request("s", "FETCH")
    with pytest.raises(RequestError, match="point type"):
        await master.read("s", {"xx": [1]})
    with pytest.raises(RequestError, match="address"):
        await master.broadcast("s", "READ", b"", address="everyone")
    with pytest.raises(RequestError):
        master.clear("s", "everything")
    await master.close()


async def test_request_by_name_and_broadcast_addresses() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        await master.add(settings(out.port))
        call = asyncio.create_task(master.request("s", "read", CLASS0))
        assert await out.frame() == frame(0xC4, 1024, 1, bytes((0xC0, 0xC0, 0x01)) + CLASS0)
        out.send(response(0))
        exchange = await call
        assert (exchange.function, exchange.outcome) == ("READ", "complete")
        # no_confirm is 0xFFFD: destination FD FF in the link header.
        exchange = await master.broadcast("s", "READ", CLASS0, address="no_confirm")
        assert (exchange.outcome, exchange.broadcast) == ("sent", 0xFFFD)
        assert await out.frame() == frame(0xC4, 0xFFFD, 1, bytes((0xC1, 0xC1, 0x01)) + CLASS0)
        await master.close()


async def test_a_schedule_set_again_abandons_its_outstanding_scan() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        sub = master.bus.subscribe()
        await master.add(settings(out.port, response_timeout=30))
        status = await master.repeat("s", "class0", 60)
        assert status.schedules == {"class0": 60}
        await out.frame()  # the first scan, never answered
        status = await master.repeat("s", "class0", 30)
        assert status.schedules == {"class0": 30}
        await out.frame()  # the new schedule's first scan
        exchanges = [d["exchange"] for e, d in drain(sub) if e == "exchange"]
        assert [(x.outcome, x.task) for x in exchanges] == [("abandoned", "repeat")]
        status = await master.repeat("s", "class0", None)
        assert status.schedules == {}
        assert master.status().outstations[0].schedules == {}
        await master.close()


@pytest.mark.serial  # assert_spaced bounds each gap
async def test_schedule_scans_every_interval() -> None:
    loop = asyncio.get_running_loop()
    async with ScriptedOutstation() as out:
        master = Master()
        await master.add(settings(out.port))
        await master.repeat("s", "class1", 0.2)
        arrived: list[float] = []
        for seq in range(4):
            # READ of class 1: application C0|seq 01 3C 02 06.
            got = await out.frame()
            arrived.append(loop.time())
            assert got == frame(0xC4, 1024, 1, bytes((0xC0 | seq, 0xC0 | seq, 0x01, 0x3C, 2, 6)))
            out.send(response(seq, tr_seq=seq))  # answered at once: the wait is the schedule's
        await master.repeat("s", None, None)
        assert await out.no_frame(0.4)  # the schedule ended: no fifth scan
        await master.close()
    assert_spaced(arrived, 0.2)


# The periodic scans an outstation's settings ask for, with the READ each one sends (object
# headers after the function code 01, all with qualifier 06 = all objects):
# integrity: classes 1, 2, 3 then 0 (wire.INTEGRITY); events: classes 1, 2, 3 only
# (g60v2-4); outputs: g10v0 (binary outputs), g40v0 (analog outputs).
SETTINGS_SCANS = [
    pytest.param(field, kind, body, id=field)
    for field, kind, body in (
        ("integrity_interval", "integrity", INTEGRITY),
        ("event_interval", "events", bytes.fromhex("3c 02 06 3c 03 06 3c 04 06")),
        ("output_interval", "outputs", bytes.fromhex("0a 00 06 28 00 06")),
    )
]


@pytest.mark.serial  # assert_spaced bounds each gap
@pytest.mark.parametrize(("field", "kind", "body"), SETTINGS_SCANS)
async def test_an_interval_setting_scans_from_the_moment_it_is_added(
    field: str, kind: str, body: bytes
) -> None:
    loop = asyncio.get_running_loop()
    async with ScriptedOutstation() as out:
        master = Master()
        status = await master.add(settings(out.port, **{field: 0.2}))
        assert status.schedules == {kind: 0.2}
        arrived: list[float] = []
        for seq in range(3):
            # Application C0|seq (FIR|FIN), READ 01, then the scan's headers; transport C0|seq.
            got = await out.frame(within=3.0)
            arrived.append(loop.time())
            assert got == frame(0xC4, 1024, 1, bytes((0xC0 | seq, 0xC0 | seq, 0x01)) + body)
            out.send(response(seq, tr_seq=seq))
        await master.close()
    assert_spaced(arrived, 0.2)


async def test_clear_forgets_and_counts() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        await master.add(settings(out.port))
        call = asyncio.create_task(master.scan("s", "class0"))
        await out.frame()
        # g1v2 start 0 stop 1, and one g2v1 event (1-octet prefix 0x17, count 1, index 1).
        out.send(response(0, bytes.fromhex("01 02 00 00 01 81 01 02 01 17 01 01 81")))
        await call
        assert len(master.values("s")) == 2
        assert [(e.type, e.index) for e in master.events("s")] == [("bi", 1)]
        frames = len(master.trace("s"))
        assert frames == 2
        assert master.trace("s", after=master.trace("s")[0].id) == master.trace("s")[1:]
        assert master.clear("s", "events") == 1
        assert master.clear("s", "values") == 2
        assert master.clear("s") == frames
        assert master.values("s") == [] and master.events("s") == [] and master.trace("s") == []
        await master.close()


async def test_deviate_names_what_is_on() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        await master.add(settings(out.port))
        assert master.deviate("s", {"silence": True}) == {"silence": True}
        exchange = await master.broadcast("s", "READ", CLASS0)
        assert exchange.outcome == "sent"
        assert await out.no_frame(0.3)  # silenced
        assert master.deviate("s", {"silence": False}) == {}
        with pytest.raises(RequestError):
            master.deviate("s", {"shout": True})
        await master.close()


@pytest.mark.interop
async def test_capture_file_and_capture_result_read_by_tshark(tmp_path: Path) -> None:
    path = tmp_path / "master.pcap"
    async with ScriptedOutstation() as out:
        master = Master(capture=path)
        await master.add(settings(out.port))
        call = asyncio.create_task(master.scan("s", "class0"))
        await out.frame()
        out.send(response(0, bytes.fromhex("01 02 00 00 01 81 01")))
        await call
        result = master.capture("s")
        await master.close()
    assert result.frames == 2
    from_api = tmp_path / "api.pcap"
    from_api.write_bytes(base64.b64decode(result.pcap))
    for pcap in (path, from_api):
        rows = tshark_fields(
            pcap, out.port, ["dnp3.src", "dnp3.dst", "dnp3.al.func"], "dnp3 && !_ws.malformed"
        )
        assert rows == [["1", "1024", "1"], ["1024", "1", "129"]]


async def test_profile_names_the_points() -> None:
    from gridwire.der.demo import demo_map

    point_map = demo_map()
    expected = point_map.name_of("bi", 0)
    assert expected is not None
    async with ScriptedOutstation() as out:
        master = Master(profiles=lambda name: point_map)
        await master.add(settings(out.port, profile="demo"))
        assert master.point_map("s") is point_map
        call = asyncio.create_task(master.scan("s", "class0"))
        await out.frame()
        out.send(response(0, bytes.fromhex("01 02 00 00 01 81 01")))
        exchange = await call
        assert exchange.objects[0].name == expected
        assert master.values("s")[0].name == expected
        await master.close()
    with pytest.raises(RequestError, match="profile"):
        await Master().add(settings(free_port(), profile="demo"))
