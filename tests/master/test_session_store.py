"""What a session keeps in its value store and event log from a response whose headers mix
start-stop runs (stored as runs), index-prefixed events and objects that are not points,
written literally and sent by a scripted outstation."""

from __future__ import annotations

import asyncio

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master.session import Session
from gridwire.master.session_protocol import ExchangeResult
from tests.master.scripted import ScriptedOutstation, response
from tests.master.test_session import CLASS0, make

# By hand, in this order:
#   1E 01 00 05 06 | 01 2A000000 | 01 2B000000   g30v1, start-stop 5..6 (qualifier 00):
#                                                index 5 ONLINE 42, index 6 ONLINE 43
#   20 01 17 01 06 | 01 2C000000                 g32v1 event, count 1 with 1-octet index
#                                                (0x17): index 6 ONLINE 44, after the static
#   32 01 07 01 | E8 03 00 00 00 00              g50v1 time, count 1: not a point
#   01 02 00 03 03 | 81                          g1v2 start-stop 3..3: state 1 and ONLINE
BODY = bytes.fromhex(
    "1e0100050601" + "2a000000" + "012b000000"
    "2001170106012c000000"
    "32010701e80300000000"
    "0102000303" + "81"
)


async def read_answered(out: ScriptedOutstation, session: Session, body: bytes) -> ExchangeResult:
    """Connect, read class 0 and have the scripted outstation answer with ``body`` in one
    fragment (sequence 0)."""
    await session.connect()
    call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
    await out.frame()
    out.send(response(0, body))
    return await call


async def test_runs_events_and_non_points_are_stored_in_order() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port)
        record = (await read_answered(out, session, BODY)).record
        assert record.outcome == "complete" and record.undecoded == []
        assert [
            (v.type, v.index, v.value, v.event, v.group) for v in session.store.values(0.0)
        ] == [
            ("ai", 5, 42, False, 30),
            ("ai", 6, 44, True, 32),  # the event came after the static value
            ("bi", 3, True, False, 1),
        ]
        assert session.store.get("ai", 4) is None and session.store.get("bi", 0) is None
        assert len(session.store) == 3
        # Only the event is logged as one.
        assert [(o.type, o.index, o.value, o.group) for o in session.events.items()] == [
            ("ai", 6, 44, 32)
        ]
        await session.close()
