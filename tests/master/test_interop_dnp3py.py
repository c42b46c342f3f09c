"""The master against dnp3py's outstation (pure Python, written independently of opendnp3),
a subprocess on a free loopback port: every scan kind, events, and the tasks."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from gridwire.master import Master, OutstationSettings
from tests.support.peers import dnp3py_outstation

pytestmark = pytest.mark.interop

POINTS = 4
TYPES = 6  # binary, binary output status, analog, analog output status, counter, frozen


def settings(port: int) -> OutstationSettings:
    return OutstationSettings(name="d", host="127.0.0.1", port=port)


async def test_every_scan_kind_and_an_event() -> None:
    with dnp3py_outstation(points=POINTS) as peer:
        master = Master()
        try:
            await master.add(settings(peer.port))
            await master.idle("d")
            seen = {}
            for kind in ("integrity", "events", "class0", "class1", "class2", "class3", "outputs"):
                exchange = await master.scan("d", kind)
                assert exchange.outcome == "complete", kind
                assert exchange.undecoded == [], kind
                seen[kind] = exchange
            static = Counter(o.type for o in seen["class0"].objects)
            assert static == {t: POINTS for t in ("bi", "bo", "ai", "ao", "counter", "frozen")}
            assert Counter(o.type for o in seen["outputs"].objects) == {"bo": POINTS, "ao": POINTS}
            await asyncio.to_thread(peer.update, "counter", 2, 1234)
            exchange = await master.scan("d", "events")
            events = [(o.type, o.index, o.value) for o in exchange.objects if o.event]
            assert ("counter", 2, 1234) in events
            read = await master.read("d", {"counter": ["1-2"], "ai": [0]})
            assert read.outcome == "complete"
            # READ (01), g20v0 qualifier 00 start 1 stop 2, g30v0 qualifier 00 start 0 stop 0.
            assert read.request[2:] == "0114000001021e00000000"
            # dnp3py answers a range read with every point of the group (its quirk): the
            # points named are among them.
            named = {(o.type, o.index) for o in read.objects}
            assert {("ai", 0), ("counter", 1), ("counter", 2)} <= named
        finally:
            await master.close()
