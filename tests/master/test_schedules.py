"""Scans on a schedule (issue 9, item 8): an interval has a minimum, refused below it from
the Python API, the operation and the settings alike; and a schedule whose outstation is not
connected waits for the connection instead of trying (and failing) scan after scan."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest
from pydantic import ValidationError

from gridwire.errors import RequestError
from gridwire.master import Master, OutstationSettings
from gridwire.master.settings import MIN_SCAN_INTERVAL
from gridwire.operations.context import Context
from gridwire.operations.dispatch import Dispatcher
from gridwire.operations.table import default_table
from tests.master.scripted import ScriptedOutstation
from tests.master.wire import frame

# READ of class 1 (01, g60v2 qualifier 06) with application and transport C0|seq.
CLASS1 = bytes.fromhex("01 3c 02 06")
TOO_SHORT = [1e-9, 0.05, 0.0999, 0.0, -1.0, float("inf"), float("nan")]
# How many scans a schedule may try while its outstation is not connected: none, but the one
# the loop may have begun as the connection went.
SKIPPED_AT_MOST = 1


def settings(port: int, **fields: Any) -> OutstationSettings:
    values: dict[str, Any] = {"manual": True, "reconnect": None, "response_timeout": 2.0}
    return OutstationSettings(name="s", host="127.0.0.1", port=port, **(values | fields))


def test_the_minimum_is_a_tenth_of_a_second() -> None:
    assert MIN_SCAN_INTERVAL == 0.1


async def test_repeat_refuses_an_interval_below_the_minimum_naming_it() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        try:
            await master.add(settings(out.port))
            for interval in TOO_SHORT:
                with pytest.raises(RequestError, match=r"the minimum between scans is 0\.1 s"):
                    await master.repeat("s", "class1", interval)
            assert master.status().outstations[0].schedules == {}
            assert (await master.repeat("s", "class1", 0.1)).schedules == {"class1": 0.1}
        finally:
            await master.close()


async def test_the_operation_refuses_it_as_a_request_error() -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        try:
            await master.add(settings(out.port))
            dispatcher = Dispatcher(default_table(), Context(master))
            answer = await dispatcher.call(
                "repeat", {"outstation": "s", "kind": "class1", "interval": 1e-9}
            )
            assert answer.kind == "request"
            assert b"interval" in answer.body and b"0.1" in answer.body
            assert master.status().outstations[0].schedules == {}
        finally:
            await master.close()


@pytest.mark.parametrize("field", ["integrity_interval", "event_interval", "output_interval"])
def test_the_interval_settings_refuse_it_too(field: str) -> None:
    for interval in TOO_SHORT:
        with pytest.raises(ValidationError, match=field):
            settings(20001, **{field: interval})
    assert getattr(settings(20001, **{field: 0.1}), field) == 0.1


async def test_a_schedule_waits_for_the_connection_without_spinning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with ScriptedOutstation() as out:
        master = Master()
        try:
            await master.add(settings(out.port))
            await master.disconnect("s")
            caplog.set_level(logging.DEBUG, logger="gridwire.master.schedules")
            cpu = time.process_time()
            await master.repeat("s", "class1", MIN_SCAN_INTERVAL)
            await asyncio.sleep(1.0)  # ten intervals with nothing to scan
            used = time.process_time() - cpu
            skipped = [r for r in caplog.records if "scan not made" in r.getMessage()]
            assert len(skipped) <= SKIPPED_AT_MOST, [r.getMessage() for r in skipped]
            assert used < 0.25, used  # a spinning loop takes the whole second
            # Connected again, the schedule scans at once and goes on.
            await master.connect("s")
            for seq in range(2):
                got = await out.frame(within=5.0)
                assert got == frame(0xC4, 1024, 1, bytes((0xC0 | seq, 0xC0 | seq)) + CLASS1)
        finally:
            await master.close()
