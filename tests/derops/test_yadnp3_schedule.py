"""The schedule operations against a third-party stack: yadnp3's (opendnp3's) outstation
serving a schedule block of our own (tests/derops/data/yadnp3-schedule-map.json: AN2018-001's
layout at small indices, the inputs not lined up with the outputs, point values in tenths of
a percent), its command handler refusing a value beyond the map's range and mirroring outputs
to inputs (tests/peers/yadnp3_der.py). What opendnp3 received is read from its callbacks."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from gridwire.derops import Der, DerMaster
from gridwire.errors import RequestError
from gridwire.master import OutstationSettings
from tests.support.peers import OutstationPeer, yadnp3_der

pytestmark = pytest.mark.interop

MAP = Path(__file__).parent / "data" / "yadnp3-schedule-map.json"


@contextlib.asynccontextmanager
async def connected(peer: OutstationPeer, profile: Path) -> AsyncIterator[Der]:
    master = DerMaster(allow_control=True, tables=profile)
    try:
        settings = OutstationSettings(
            name="y", host="127.0.0.1", port=peer.port, profile="ieee1815.2"
        )
        await master.add(settings)
        await master.idle("y")
        yield master.der("y")
    finally:
        await master.close()


def _wider(tmp_path: Path) -> Path:
    """The map with a wider selector and start time than the outstation takes: the master
    sends what the outstation then refuses."""
    data = orjson.loads(MAP.read_bytes())
    for point in data["points"]:
        if (point["kind"], point["index"]) == ("AO", 0):
            point["maximum"] = 10
        if (point["kind"], point["index"]) == ("AO", 5):
            point["maximum"] = 10**9
    path = tmp_path / "wider.json"
    path.write_bytes(orjson.dumps(data))
    return path


def _operates(peer: OutstationPeer) -> list[tuple[int, object]]:
    return [(e["index"], e["value"]) for e in peer.received("operate", kind="int32")]


async def test_schedule_read_write_refusals_through_opendnp3(tmp_path: Path) -> None:
    with yadnp3_der(MAP) as peer:
        async with connected(peer, MAP) as der:
            shown = await der.schedule()
            assert (shown.number, shown.identity, shown.type, shown.count, shown.points) == (
                1,
                1,
                0,
                0,
                [],
            )
            assert (shown.status, shown.status_name, shown.ready, shown.schedules) == (
                2,
                "Inactive",
                False,
                3,
            )
            assert [e.function for e in shown.exchanges] == ["READ"]  # no points to read

            written = await der.write_schedule(
                2,
                [[0, 55.5], [900, -12.3]],
                identity=7,
                priority=2,
                type="Active power limit, generating",
                start_date=20_000,
                start_time=3_600_000,
                repeat_interval=1,
                repeat_units="Hours",
            )
            assert (written.accepted, written.matches, written.stopped_at) == (True, True, None)
            got = written.schedule
            assert (got.number, got.identity, got.priority, got.type, got.type_name) == (
                2,
                7,
                2,
                13,
                "Active power limit, generating",
            )
            assert (got.start, got.repeat_interval, got.repeat_units_name) == (
                "2024-10-04T01:00:00.000Z",
                1,
                "Hours",
            )
            assert (got.count, got.points) == (2, [[0, 55.5], [900, -12.3]])
            # Three requests, in order; the values scaled by the map's multiplier (0.1).
            await peer.aexpect("operate", kind="int32", index=12, value=-123)
            assert _operates(peer) == [
                (0, 2),
                (1, 7),
                (2, 2),
                (3, 13),
                (4, 20_000),
                (5, 3_600_000),
                (6, 1),
                (7, 3),
                (8, 2),
                (9, 0),
                (10, 555),
                (11, 900),
                (12, -123),
            ]
            assert [len(s.statuses) for s in written.steps] == [1, 8, 4]

            # Out of the tables' range: refused naming the value, nothing sent.
            with pytest.raises(RequestError, match=r"points\[1\] value.*nothing was sent"):
                await der.write_schedule(2, [[0, 50], [60, 150.0]], type=13)
            with pytest.raises(RequestError, match="number"):
                await der.write_schedule(4, [], type=13)
            again = await der.schedule()  # a round trip: anything sent would be seen by now
            assert again.points == [[0, 55.5], [900, -12.3]]
            assert len(_operates(peer)) == 13

            ready = await der.schedule_ready(2, True)
            assert (ready.accepted, ready.ready, ready.stopped_at) == (True, True, None)
            await peer.aexpect("operate", kind="crob", index=0, op_type="LATCH_ON")

        # A master whose tables are wider than the outstation's: the outstation refuses, and
        # the write stops where it was refused.
        async with connected(peer, _wider(tmp_path)) as der:
            peer.drain()
            before = len(_operates(peer))
            refused = await der.write_schedule(5, [[0, 10]], type=13)
            assert (refused.accepted, refused.stopped_at, refused.matches) == (
                False,
                "selector",
                False,
            )
            assert [s.statuses[0].status for s in refused.steps] == ["OUT_OF_RANGE"]
            refused = await der.write_schedule(3, [[0, 10]], type=13, start_time=90_000_000)
            assert (refused.accepted, refused.stopped_at) == (False, "fields")
            statuses = [s.status for s in refused.steps[1].statuses]
            assert statuses == ["SUCCESS", "OUT_OF_RANGE", "SUCCESS"]  # type, start time, count
            await der.schedule()
            sent = _operates(peer)[before:]
            # Selector 5 (refused), then selector 3, the fields (type, start time, count):
            # no point was sent after the refusal.
            assert sent == [(0, 5), (0, 3), (3, 13), (5, 90_000_000), (8, 1)]
