"""The schedule operations against the simulated DER over TCP (the demo map's schedule block:
AN2018-001's AO461 onwards), and the DER following a schedule once it is ready: its active
power limit (AO88, read back on AI149) takes each point's value at the point's time, on the
DER's clock (anchored to the host's wall clock when it starts)."""

from __future__ import annotations

import time

import pytest

from gridwire.errors import RequestError
from tests.derops.simulated import simulated
from tests.support.waiting import until

DAY_MS = 86_400_000


async def test_read_write_refusals_and_a_schedule_followed() -> None:
    async with simulated() as s:
        shown = await s.der.schedule(3)
        assert shown.selected is not None and shown.selected.accepted is True
        assert (shown.number, shown.count, shown.status_name, shown.schedules) == (
            3,
            0,
            "Inactive",
            4,
        )

        # Starting two seconds from now on the DER's clock: 25 % at once, 62.5 % 1 s later
        # (the values as AO88 transmits them, tenths of a percent).
        start = int(time.time() * 1000) + 2000
        fields = {"type": 13, "start_date": start // DAY_MS, "start_time": start % DAY_MS}
        written = await s.der.write_schedule(3, [[0, 250], [1, 625]], priority=1, **fields)
        assert (written.accepted, written.matches, written.stopped_at) == (True, True, None)
        assert written.schedule.points == [[0, 250], [1, 625]]
        assert written.schedule.type_name == "Active power limit, generating"

        frames = s.frames()
        with pytest.raises(RequestError, match=r"points\[0\] time offset.*nothing was sent"):
            await s.der.write_schedule(3, [[-1, 250]], type=13)
        with pytest.raises(RequestError, match="at most 10 points"):
            await s.der.write_schedule(3, [[n, 0] for n in range(11)], type=13)
        assert s.frames() == frames

        ready = await s.der.schedule_ready(3, True)
        assert (ready.accepted, ready.ready) == (True, True)
        # A schedule in use refuses edits: the write stops at the fields, points not sent.
        refused = await s.der.write_schedule(3, [[0, 100]], type=13)
        assert (refused.accepted, refused.stopped_at, refused.matches) == (False, "fields", False)
        assert {st.status for st in refused.steps[1].statuses} == {"AUTOMATION_INHIBIT"}
        assert len(refused.steps) == 2
        beyond = await s.der.write_schedule(5, [[0, 100]], type=13)
        assert (beyond.stopped_at, beyond.steps[0].statuses[0].status) == (
            "selector",
            "OUT_OF_RANGE",
        )

        # Followed: the limit as the master reads it, and the running index and status.
        async def limit() -> object:
            return (await s.der.read(["AI149", "AI569"])).points

        seen: list[tuple[object, object]] = []

        def at(value: int) -> bool:
            stored = s.device.database.get("ai", 149).value
            return stored == value

        await until(lambda: at(250), within=10)
        points = await limit()
        seen.append((points[0].raw, points[1].raw))
        await until(lambda: at(625), within=10)
        points = await limit()
        seen.append((points[0].raw, points[1].raw))
        assert seen == [(250, 3), (625, 3)]
        status = await s.der.schedule()
        assert (status.status_name, status.running, status.ready) == ("Running", 3, True)

        stopped = await s.der.schedule_ready(3, False)
        assert (stopped.accepted, stopped.ready, stopped.running) == (True, False, 0)
