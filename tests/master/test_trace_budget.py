"""The trace budget (DESIGN D147): every outstation's frame log together keeps at most the
budget's bytes (a frame counts its octets plus FRAME_OVERHEAD), the oldest frames of the
whole master go first, each log's own cap still holds, and ``trace`` and ``capture`` say how
many frames were dropped."""

from __future__ import annotations

import pytest

from gridwire.master.trace import FrameLog
from gridwire.master.trace_budget import FRAME_OVERHEAD, TraceBudget
from tests.master.wire import READ_FRAME
from tests.service.harness import ok, outstation, running_service, transport
from tests.support.peers import yadnp3_outstation

COST = 18 + FRAME_OVERHEAD  # READ_FRAME is 18 octets: 05 64 0B C4 ... 7C CD


def test_the_oldest_frame_of_the_whole_master_goes_first() -> None:
    budget = TraceBudget(3 * COST)
    a, b = FrameLog(budget=budget), FrameLog(budget=budget)
    a.log_sent(READ_FRAME, 1.0)
    a.log_sent(READ_FRAME, 2.0)
    b.log_sent(READ_FRAME, 3.0)
    assert budget.used == 3 * COST and (len(a), len(b)) == (2, 1)
    a.log_sent(READ_FRAME, 4.0)  # a's frame of time 1 is the oldest anywhere: it goes
    assert [f.time_ms for f in a.after()] == [2.0, 4.0]
    assert [f.id for f in a.after()] == [2, 3]
    b.log_sent(READ_FRAME, 5.0)  # then a's frame of time 2, though b logged this one
    assert [f.time_ms for f in a.after()] == [4.0]
    assert [f.time_ms for f in b.after()] == [3.0, 5.0]
    assert budget.used == 3 * COST
    assert (a.dropped, b.dropped) == (2, 0)
    assert (a.gone(0), a.gone(1), a.gone(2), a.gone(3)) == (2, 1, 0, 0)


def test_the_per_outstation_cap_still_holds_and_gives_its_bytes_back() -> None:
    budget = TraceBudget(1000 * COST)
    log = FrameLog(limit=2, budget=budget)
    for time_ms in (1.0, 2.0, 3.0):
        log.log_sent(READ_FRAME, time_ms)
    assert [f.id for f in log.after()] == [2, 3] and log.dropped == 1
    assert budget.used == 2 * COST
    assert log.clear() == 2 and budget.used == 0
    assert log.dropped == 1 and log.gone(0) == 3  # cleared frames are gone, not dropped


def test_a_removed_outstations_log_leaves_the_budget() -> None:
    budget = TraceBudget(100 * COST)
    logs = [FrameLog(budget=budget) for _ in range(100)]
    for n, log in enumerate(logs):
        log.log_sent(READ_FRAME, float(n))
    assert budget.used == 100 * COST and len(budget) == 100
    for log in logs:
        log.close()
    # Their bytes at once; their heap entries once they are half the heap (amortized).
    assert budget.used == 0 and len(budget) <= 16
    survivor = FrameLog(budget=budget)
    survivor.log_sent(READ_FRAME, 100.0)
    assert len(survivor) == 1 and budget.used == COST


def test_a_budget_smaller_than_one_frame_keeps_none() -> None:
    budget = TraceBudget(COST - 1)
    log = FrameLog(budget=budget)
    assert log.log_sent(READ_FRAME, 1.0) == 1
    assert len(log) == 0 and log.dropped == 1 and budget.used == 0
    assert log.last_id == 1 and log.gone(0) == 1
    assert log.first_id == 2  # the wire publishes a frame only from here (none kept)


@pytest.mark.parametrize("kind", ["line", "http"])
async def test_trace_and_capture_say_how_many_frames_were_dropped(kind: str) -> None:
    # yadnp3's outstation answers the startup tasks and three scans; a budget of 300 bytes
    # keeps two small frames at most, so the first ones are gone and are counted.
    budget = 300
    with yadnp3_outstation(points=2) as peer:
        async with (
            running_service(outstations=[outstation(peer.port)], trace_budget=budget) as running,
            transport(kind, running) as api,
        ):
            ok(await api.call("idle", "y"))
            for _ in range(3):
                ok(await api.call("scan", "y", kind="integrity"))
            trace = ok(await api.call("trace", "y"))
            ids = [f["id"] for f in trace["frames"]]
            assert ids and trace["dropped"] == ids[0] - 1 > 0
            assert trace["dropped_for_room"] == trace["dropped"]
            assert running.service.master.trace_budget.used <= budget
            later = ok(await api.call("trace", "y", after=ids[-1]))
            assert later["frames"] == [] and later["dropped"] == 0
            capture = ok(await api.call("capture", "y"))
            assert capture["frames"] == len(ids) and capture["dropped"] == ids[0] - 1
            assert capture["dropped_for_room"] == trace["dropped_for_room"]
