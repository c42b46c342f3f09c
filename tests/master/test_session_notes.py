"""What the exchange rules name reaches the caller of a session's exchange: the scripted
outstation answers with octets laid out by hand (tests/master/scripted.response), and the
result's ``notes`` say which rules the answers broke (gridwire.master.exchange)."""

from __future__ import annotations

import asyncio

from gridwire.dnp3.app.functions import FunctionCode
from tests.master.scripted import ScriptedOutstation, response
from tests.master.test_session import CLASS0, TWO_BINARIES, make, request_frame


async def test_a_wrong_sequence_is_named_and_not_confirmed() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, confirm=True)
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        # Seq 5 with CON, while the read is numbered 0: not taken, so not confirmed.
        out.send(response(5, TWO_BINARIES, con=True))
        assert await out.no_frame(0.2)
        # Then seq 0 without FIR (FIN only): taken, its lack of FIR named.
        out.send(response(0, TWO_BINARIES, fir=False, tr_seq=1))
        result = await call
        assert (result.record.outcome, result.record.object_count) == ("complete", 2)
        assert result.notes == ["wrong_sequence: 5, expected 0", "first_without_fir"]
        await session.close()


async def test_an_exchange_that_kept_the_rules_has_no_notes() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port)
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        await out.frame()
        out.send(response(0, TWO_BINARIES))
        assert (await call).notes == []
        await session.close()
