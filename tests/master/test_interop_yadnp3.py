"""The master against yadnp3's outstation (opendnp3, C++), a subprocess on a free loopback
port: scans, unsolicited responses, the tasks, reconnection, TLS, and the 9000-point,
18-fragment integrity poll."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gridwire.master import Master, OutstationSettings, TlsSettings
from gridwire.master.bus import Subscriber
from tests.support.certs import make_pki
from tests.support.net import free_port
from tests.support.peers import OutstationPeer, yadnp3_outstation

pytestmark = pytest.mark.interop

POINTS = 5
TYPES = 9  # yadnp3 serves POINTS of each of its nine types


def settings(port: int, **fields: Any) -> OutstationSettings:
    return OutstationSettings(name="y", host="127.0.0.1", port=port, **fields)


async def update(peer: OutstationPeer, kind: str, index: int, value: Any, **fields: Any) -> None:
    await asyncio.to_thread(peer.update, kind, index, value, **fields)


async def next_event(sub: Subscriber, name: str, within: float = 10.0) -> dict[str, Any]:
    async def find() -> dict[str, Any]:
        while True:
            event, data = await sub.get()
            if event == name:
                return data

    return await asyncio.wait_for(find(), within)


async def test_every_scan_kind() -> None:
    with yadnp3_outstation(points=POINTS) as peer:
        master = Master()
        try:
            await master.add(settings(peer.port))
            await master.idle("y")
            await update(peer, "analog", 3, 42, flags=1)  # g30v1: 32-bit integer
            await update(peer, "binary_output_status", 1, True, flags=1)
            seen: dict[str, Any] = {}
            for kind in ("integrity", "events", "class0", "class1", "class2", "class3", "outputs"):
                exchange = await master.scan("y", kind)
                assert exchange.outcome == "complete", kind
                assert exchange.undecoded == [], kind
                seen[kind] = exchange
            integrity = seen["integrity"]
            # Class 0 carries every point of the nine types; the events come first.
            static = [o for o in integrity.objects if not o.event]
            assert len(static) == POINTS * TYPES
            analog = [o for o in integrity.objects if o.type == "ai" and o.index == 3]
            assert analog[-1].value == 42 and analog[-1].flags == ["ONLINE"]
            assert any(o.event and o.type == "ai" and o.index == 3 for o in integrity.objects)
            assert seen["class0"].object_count == POINTS * TYPES
            # Events were read by the integrity poll: nothing is left.
            assert seen["events"].object_count == 0
            outputs = seen["outputs"].objects
            assert Counter(o.type for o in outputs) == {"bo": POINTS, "ao": POINTS}
            assert [o.value for o in outputs if o.type == "bo" and o.index == 1] == [True]
            stored = {(v.type, v.index): v for v in master.values("y")}
            assert stored[("ai", 3)].value == 42
            # READ (01) of g60v2, g60v3, g60v4 then g60v1, qualifier 06 each.
            assert seen["integrity"].request[2:] == "013c02063c03063c04063c0106"
        finally:
            await master.close()


async def test_read_of_named_points() -> None:
    with yadnp3_outstation(points=POINTS) as peer:
        master = Master()
        try:
            await master.add(settings(peer.port))
            await master.idle("y")
            read = await master.read("y", {"counter": ["1-2", 4], "bi": [0], "ao": ["3"]})
            assert read.outcome == "complete" and read.undecoded == []
            # READ (01): g20v0 qualifier 00 1..2 and 4..4, g1v0 00 0..0, g40v0 00 3..3
            # (types in the order given, one range header per run of indexes).
            assert read.request[2:] == "01" + "1400000102140000040401000000002800000303"
            assert sorted((o.type, o.index) for o in read.objects) == [
                ("ao", 3),
                ("bi", 0),
                ("counter", 1),
                ("counter", 2),
                ("counter", 4),
            ]
        finally:
            await master.close()


async def test_nine_thousand_points_in_eighteen_fragments() -> None:
    with yadnp3_outstation(points=1000) as peer:
        master = Master()
        try:
            await master.add(settings(peer.port))
            await master.idle("y")
            exchange = await master.scan("y", "integrity")
            assert exchange.outcome == "complete"
            assert exchange.fragments == 18
            assert exchange.object_count == 9000
            assert exchange.undecoded == []
            groups = Counter((o.group, o.variation) for o in exchange.objects)
            assert set(groups.values()) == {1000}
            assert len(groups) == TYPES
            # Every point's value is stored: all but g50v4 and g110, which are not points.
            points = [o for o in exchange.objects if o.type is not None]
            assert len(points) == 7000
            assert len(master.values("y")) == 7000
        finally:
            await master.close()


async def test_unsolicited_null_at_connect_then_events() -> None:
    with yadnp3_outstation(points=POINTS, unsolicited=True) as peer:
        master = Master()
        sub = master.bus.subscribe()
        try:
            await master.add(settings(peer.port, tasks={"enable_unsolicited": [1, 2, 3]}))
            first = await next_event(sub, "unsolicited")
            assert first["objects"] == [] and "DEVICE_RESTART" in first["indications"]
            await master.idle("y")
            # The confirmation of the null unsolicited response: CONFIRM with UNS.
            confirms = [
                f for f in master.trace("y") if "CONFIRM" in f.summary and "UNS" in f.summary
            ]
            assert confirms
            await update(peer, "analog", 2, -7, flags=1)
            while True:
                data = await next_event(sub, "unsolicited")
                if data["objects"]:
                    break
            [event] = data["objects"]
            assert (event.type, event.index, event.value, event.event) == ("ai", 2, -7, True)
            assert [e.value for e in master.events("y") if e.type == "ai"] == [-7]
        finally:
            await master.close()


async def test_events_read_when_indicated_and_wait_for() -> None:
    with yadnp3_outstation(points=POINTS) as peer:
        master = Master()
        sub = master.bus.subscribe()
        try:
            await master.add(settings(peer.port))
            await master.idle("y")
            waiting = asyncio.create_task(
                master.wait_for("y", 10, event={"type": "counter", "index": 4})
            )
            await update(peer, "counter", 4, 99, flags=1)
            # Any response now carries CLASS_1_EVENTS; the master reads the events itself.
            await master.scan("y", "class0")
            result = await waiting
            assert result.held
            assert [(e.type, e.index, e.value) for e in result.events] == [("counter", 4, 99)]
            await master.idle("y")
            tasks = []
            while (update_ := sub.get_nowait()) is not None:
                if update_[0] == "exchange":
                    tasks.append(update_[1]["exchange"].task)
            assert "events_when_indicated" in tasks
            value = await master.wait_for(
                "y", 1, value={"type": "counter", "index": 4, "equals": 99}
            )
            assert value.held and value.point is not None and value.point.value == 99
        finally:
            await master.close()


async def test_restart_indication_left_as_found_without_control() -> None:
    with yadnp3_outstation(points=POINTS) as peer:
        master = Master()
        try:
            await master.add(settings(peer.port))
            await master.idle("y")
            status = master.status().outstations[0]
            assert "DEVICE_RESTART" in status.indications
            assert not any("AL WRITE" in f.summary for f in master.trace("y"))
        finally:
            await master.close()


async def test_restart_indication_cleared_with_control() -> None:
    with yadnp3_outstation(points=POINTS) as peer:
        master = Master(allow_control=True)
        try:
            await master.add(settings(peer.port))
            await master.idle("y")
            exchange = await master.scan("y", "class0")
            assert "DEVICE_RESTART" not in exchange.indications
            assert any("AL WRITE" in f.summary for f in master.trace("y"))
        finally:
            await master.close()


async def test_reconnect_after_the_outstation_is_killed_and_restarted() -> None:
    with yadnp3_outstation(points=POINTS) as peer:
        master = Master()
        sub = master.bus.subscribe()
        try:
            await master.add(settings(peer.port, reconnect=0.5))
            await master.idle("y")
            await asyncio.to_thread(peer.kill)
            assert await next_event(sub, "connection") == {"outstation": "y", "connected": True}
            assert await next_event(sub, "connection") == {"outstation": "y", "connected": False}
            await asyncio.to_thread(peer.start)
            assert await next_event(sub, "connection", 20) == {
                "outstation": "y",
                "connected": True,
            }
            await master.idle("y")
            assert (await master.scan("y", "class0")).outcome == "complete"
        finally:
            await master.close()


async def test_outstanding_request_abandoned_on_disconnect() -> None:
    # Without confirmations (manual) yadnp3 holds its answer to the first read about 5 s
    # while it waits for the confirmation of its null unsolicited response.
    with yadnp3_outstation(points=POINTS, unsolicited=True) as peer:
        master = Master()
        try:
            await master.add(settings(peer.port, manual=True, response_timeout=20))
            call = asyncio.create_task(master.scan("y", "class0"))
            await asyncio.sleep(0.5)
            await master.disconnect("y")
            exchange = await call
            assert exchange.outcome == "abandoned"
            assert master.status().outstations[0].state == "disconnected"
        finally:
            await master.close()


async def test_connect_waits_for_an_outstation_that_starts_late() -> None:
    port = free_port()
    master = Master()
    try:
        with pytest.raises(Exception, match="cannot connect"):
            await master.add(settings(port, reconnect=None))
        attempt = asyncio.create_task(master.connect("y", wait=30))
        await asyncio.sleep(1.5)
        assert not attempt.done()
        with yadnp3_outstation(points=POINTS, port=port):
            status = await asyncio.wait_for(attempt, 30)
            assert status.connected and status.state == "connected"
            await master.idle("y")
            assert (await master.scan("y", "integrity")).outcome == "complete"
    finally:
        await master.close()


async def test_over_tls(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    with yadnp3_outstation(points=POINTS, tls=pki) as peer:
        master = Master()
        tls = TlsSettings(
            ca=str(pki.ca),
            certificate=str(pki.client.certificate),
            key=str(pki.client.key),
            server_name="localhost",
        )
        try:
            status = await master.add(settings(peer.port, tls=tls))
            assert status.tls and status.connected
            await master.idle("y")
            exchange = await master.scan("y", "integrity")
            assert exchange.outcome == "complete"
            assert len([o for o in exchange.objects if not o.event]) == POINTS * TYPES
        finally:
            await master.close()


async def test_tls_refuses_an_outstation_our_ca_did_not_sign(tmp_path: Path) -> None:
    ours = make_pki(tmp_path / "ours", name="ours")
    theirs = make_pki(tmp_path / "theirs", name="theirs")
    with yadnp3_outstation(points=POINTS, tls=theirs) as peer:
        master = Master()
        tls = TlsSettings(
            ca=str(ours.ca),
            certificate=str(ours.client.certificate),
            key=str(ours.client.key),
            server_name="localhost",
        )
        try:
            with pytest.raises(Exception, match="cannot connect"):
                await master.add(settings(peer.port, tls=tls, reconnect=None))
        finally:
            await master.close()


async def test_write_time_task_on_need_time() -> None:
    with yadnp3_outstation(points=POINTS, need_time=True) as peer:
        master = Master(allow_control=True)
        try:
            await master.add(settings(peer.port))
            await master.idle("y")
            written = await peer.aexpect("time_write")
            assert written["via"] == "g50v3"  # the LAN procedure
            tasks = [e for e in master.trace("y") if "RECORD_CURRENT_TIME" in e.summary]
            assert tasks
        finally:
            await master.close()
