"""The outstation's figures.

1. Sans-IO: an integrity poll (classes 1, 2, 3, 0) answered by the session alone, every
   fragment confirmed, for 1000 points of each of its seven types (7000 points); and 1000
   events answered and confirmed.
2. On loopback: yadnp3's master (opendnp3) polling gridwire's outstation with the same 7000
   points, and the simulated DER, timed from issue to the master's completion callback; to
   compare with yadnp3's master polling yadnp3's own outstation (bench_peers).
"""

from __future__ import annotations

import statistics
import time

from tests.outstation.serving import serving
from tests.support.peers import yadnp3_bench

from gridwire.dnp3.link import LinkFrame, LinkReader, user_data
from gridwire.dnp3.transport import Reassembler
from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.database_file import database_from_json
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.points import POINT_TYPES
from gridwire.outstation.session import OutstationSession
from gridwire.simulator import SimulatedDer

INTEGRITY = bytes.fromhex("3C 02 06 3C 03 06 3C 04 06 3C 01 06")


def _exchange(session: OutstationSession, body: bytes, seq: int, now: float) -> int:
    """One read answered to its last fragment, each confirmed; returns the fragments."""
    reader, reassembler = LinkReader(), Reassembler(4096)
    frame = user_data(1024, 1, bytes((0xC0, 0xC0 | seq, 0x01)) + body, from_master=True)
    out = session.receive(frame, now)
    fragments = 0
    while True:
        done = None
        for chunk in out:
            for item in reader.feed(chunk):
                if not isinstance(item, LinkFrame):
                    continue
                fragment = reassembler.feed(item.data)
                if isinstance(fragment, bytes):
                    fragments += 1
                    done = fragment
        if done is None or (done[0] & 0x40 and not done[0] & 0x20):
            return fragments
        confirm = user_data(1024, 1, bytes((0xC0, 0xC0 | (done[0] & 0x0F), 0x00)), from_master=True)
        out = session.receive(confirm, now)
        if done[0] & 0x40:
            return fragments


def _sans_io() -> None:
    db = database_from_json({"points": dict.fromkeys(POINT_TYPES, 1000)})
    session = OutstationSession(GenericDevice(db), OutstationConfig())
    session.connect(0.0)
    times = []
    fragments = 0
    for n in range(30):
        started = time.perf_counter()
        fragments = _exchange(session, INTEGRITY, n & 0x0F, float(n))
        times.append((time.perf_counter() - started) * 1000)
    print(
        f"   sans-IO integrity poll, 7000 points ({fragments} fragments): "
        f"median {statistics.median(times):.2f} ms, min {min(times):.2f} ms"
    )
    events = Database(DeviceClock(0.0, 0.0), event_capacity=2000)
    for index in range(1000):
        events.add("ai", index, 0)
    session = OutstationSession(GenericDevice(events), OutstationConfig())
    session.connect(0.0)
    for index in range(1000):
        events.update("ai", index, index + 1, now=1.0)
    started = time.perf_counter()
    fragments = _exchange(session, bytes.fromhex("3C 02 06"), 0, 2.0)
    elapsed = (time.perf_counter() - started) * 1000
    assert len(events.events) == 0
    print(f"   sans-IO 1000 g32v3 events ({fragments} fragments), confirmed: {elapsed:.2f} ms")


def _loopback() -> None:
    cases = (
        (
            "generic database, 7000 points",
            database_from_json({"points": dict.fromkeys(POINT_TYPES, 1000)}),
            40,
        ),
        ("simulated DER, demo map", SimulatedDer(), 40),
    )
    for name, device, polls in cases:
        with serving(device) as served:
            figures = yadnp3_bench(served.port, polls)
        if figures.get("event") != "bench":
            print(f"   {name}: no figures: {figures}")
            continue
        print(
            f"   yadnp3 master -> gridwire {name} ({figures['fragments']:g} fragments), "
            f"{polls} polls: median {figures['median_ms']:.2f} ms, "
            f"p90 {figures['p90_ms']:.2f} ms, min {figures['min_ms']:.2f} ms"
        )


def main() -> None:
    _sans_io()
    _loopback()


if __name__ == "__main__":
    main()
