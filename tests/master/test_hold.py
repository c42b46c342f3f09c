"""``Master.hold(outstation)``: while one caller holds an outstation, every other request to it
(another caller's, a task's, a scheduled scan's) waits until the hold ends; the holder's own
requests go at once. Proved over TCP against gridwire's simulated DER: the order in which
the outstation received the requests is read back from the master's trace (sent frames)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gridwire.master import Master, OutstationSettings
from gridwire.outstation import run_outstation
from gridwire.simulator import SimulatedDer

NAME = "der"


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


def sent_reads(master: Master, after: int) -> list[str]:
    """Summaries of the requests sent after frame ``after`` (one frame each here)."""
    return [
        f.summary
        for f in master.trace(NAME, after)
        if f.direction == "sent" and "READ" in f.summary
    ]


async def _master(port: int) -> Master:
    master = Master(allow_control=True)
    await master.add(OutstationSettings(name=NAME, host="127.0.0.1", port=port, manual=True))
    return master


async def test_another_callers_read_waits_for_the_hold_to_end() -> None:
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0) as server:
        master = await _master(server.port)
        try:
            start = master.session(NAME).frames.last_id
            order: list[str] = []
            go = asyncio.Event()
            other_done = asyncio.Event()

            async def other() -> None:
                await go.wait()
                await master.read(NAME, {"bi": ["0"]})
                order.append("other")
                other_done.set()

            # Another caller: its task is not started by the holder (as a service's is not).
            waiting = asyncio.ensure_future(other())
            async with master.hold(NAME):
                assert master.session(NAME).hold.held
                go.set()
                for _ in range(3):
                    await asyncio.sleep(0.05)
                    exchange = await master.read(NAME, {"ai": ["0"]})  # the holder's: goes
                    assert exchange.outcome == "complete"
                    order.append("holder")
                await asyncio.sleep(0.2)
                assert not other_done.is_set()  # still waiting, however long the hold lasts
            await asyncio.wait_for(waiting, 5)
            assert order == ["holder", "holder", "holder", "other"]
            reads = sent_reads(master, start)
            assert len(reads) == 4
            assert not master.session(NAME).hold.held
        finally:
            await master.close()


async def test_a_scheduled_scan_and_a_task_wait_too() -> None:
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0) as server:
        master = await _master(server.port)
        try:
            async with master.hold(NAME):
                await master.repeat(NAME, "class1", 0.1)
                master.set_tasks(NAME, {"events_when_indicated": True})
                start = master.session(NAME).frames.last_id
                await asyncio.sleep(0.5)
                assert sent_reads(master, start) == []  # nothing of theirs got out
                mine = await master.read(NAME, {"ai": ["0"]})
                assert mine.outcome == "complete"
                assert len(sent_reads(master, start)) == 1
            await asyncio.sleep(0.5)
            assert len(sent_reads(master, start)) >= 2  # the schedule goes on after
            await master.repeat(NAME, None, None)
        finally:
            await master.close()


async def test_a_hold_within_a_hold_and_tasks_the_holder_starts_pass() -> None:
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0) as server:
        master = await _master(server.port)
        try:
            async with master.hold(NAME), master.hold(NAME):
                inner = asyncio.ensure_future(master.read(NAME, {"ai": ["0"]}))
                exchange = await asyncio.wait_for(inner, 5)  # started by the holder: passes
                assert exchange.outcome == "complete"
            assert not master.session(NAME).hold.held
        finally:
            await master.close()


async def test_a_second_holder_waits_for_the_first() -> None:
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0) as server:
        master = await _master(server.port)
        try:
            order: list[str] = []

            async def holder(name: str, pause: float) -> None:
                async with master.hold(NAME):
                    order.append(f"{name} in")
                    await asyncio.sleep(pause)
                    await master.read(NAME, {"ai": ["0"]})
                    order.append(f"{name} out")

            first = asyncio.ensure_future(holder("first", 0.2))
            await asyncio.sleep(0.05)
            await asyncio.wait_for(asyncio.gather(first, holder("second", 0.0)), 5)
            assert order == ["first in", "first out", "second in", "second out"]
        finally:
            await master.close()
