"""Tasks a session performs by itself on the indications an outstation sets, against the
scripted outstation: the requests are compared with frames laid out by hand
(tests/master/wire.py, the tests' own CRC), the answers are written literally.

Requests from the master: transport C0 | transport sequence (FIR|FIN), application
C0 | sequence (FIR|FIN), function code, object headers. Responses: scripted.response(),
whose ``iin`` argument is IIN1 then IIN2 (IEEE 1815-2012 clause 4.2.2.7.3):
IIN1 0x10 is NEED_TIME, IIN2 0x08 is EVENT_BUFFER_OVERFLOW.
"""

from __future__ import annotations

import asyncio
import time

from gridwire.dnp3.app.functions import FunctionCode
from tests.master.scripted import ScriptedOutstation, response
from tests.master.test_session import CLASS0, drain, make, request_frame
from tests.master.wire import INTEGRITY


async def test_event_buffer_overflow_is_followed_by_an_integrity_poll() -> None:
    async with ScriptedOutstation() as out:
        # manual: every task off but the one given.
        session, bus = make(out.port, tasks={"integrity_on_overflow": True})
        sub = bus.subscribe()
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        # The answer sets EVENT_BUFFER_OVERFLOW: IIN1 00, IIN2 08.
        out.send(response(0, iin=b"\x00\x08"))
        assert (await call).record.indications == ["EVENT_BUFFER_OVERFLOW"]
        # The next request is the integrity poll: application seq 1, transport seq 1.
        assert await out.frame(within=3.0) == request_frame(1, 1, 0x01, INTEGRITY)
        # Its answer still says overflow: the answer to an integrity poll does not ask for
        # another one.
        out.send(response(1, iin=b"\x00\x08", tr_seq=1))
        await asyncio.wait_for(session.idle(), 5)
        assert await out.no_frame(0.3)
        exchanges = [e["exchange"] for e in drain(sub, "exchange")]
        assert [(x.function, x.task, x.sequence, x.outcome) for x in exchanges] == [
            ("READ", None, 0, "complete"),
            ("READ", "integrity_on_overflow", 1, "complete"),
        ]
        assert exchanges[1].request == "c1013c02063c03063c04063c0106"
        await session.close()


async def test_need_time_with_the_non_lan_procedure_measures_the_delay_then_writes() -> None:
    async with ScriptedOutstation() as out:
        session, bus = make(
            out.port, allow_control=True, tasks={"write_time": True}, time_procedure="non_lan"
        )
        sub = bus.subscribe()
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        measure_asked_ms = time.time() * 1000.0  # DELAY_MEASURE cannot leave before this
        out.send(response(0, iin=b"\x10\x00"))  # IIN1 10: NEED_TIME
        assert (await call).record.indications == ["NEED_TIME"]
        # DELAY_MEASURE (function 0x17), no objects; not RECORD_CURRENT_TIME (0x18, LAN).
        assert await out.frame(within=3.0) == request_frame(1, 1, 0x17, b"")
        # Held 0.6 s, then answered with g52v2 (time delay fine), qualifier 07 count 1,
        # turnaround 0x00C8 = 200 ms (low octet first). The master measures a round trip of
        # at least 600 ms, so its one-way delay is at least (600 - 200) / 2 = 200 ms.
        await asyncio.sleep(0.6)
        answered_ms = time.time() * 1000.0  # the clock read for the write comes after this
        out.send(response(1, bytes.fromhex("34 02 07 01 c8 00"), tr_seq=1))
        write = await out.frame(within=3.0)
        written_by_ms = time.time() * 1000.0
        # WRITE (function 02) of g50v1 (absolute time), qualifier 07 count 1, then 6 octets of
        # milliseconds since 1970, low octet first: the frame's user data is C2 C2 02 32 01 07
        # 01 and the time, 13 octets, so the time is octets 17..22 of the frame (after the
        # 10-octet link header). The whole frame, its CRCs included, is laid out again by hand.
        written_ms = int.from_bytes(write[17:23], "little")
        time_object = bytes.fromhex("32 01 07 01") + written_ms.to_bytes(6, "little")
        assert write == request_frame(2, 2, 0x02, time_object)
        # Written: the master's clock as the write leaves plus the delay. The delay is at least
        # 200 ms and at most half of the whole time the DELAY_MEASURE could have been out,
        # less the 200 ms turnaround (1 ms allowed for rounding).
        most_delay = (written_by_ms - measure_asked_ms - 200) / 2
        assert answered_ms + 200 - 1 <= written_ms <= written_by_ms + most_delay + 1
        out.send(response(2, tr_seq=2))
        await asyncio.wait_for(session.idle(), 5)
        exchanges = [e["exchange"] for e in drain(sub, "exchange")]
        assert [(x.function, x.task, x.outcome) for x in exchanges] == [
            ("READ", None, "complete"),
            ("DELAY_MEASURE", "write_time", "complete"),
            ("WRITE", "write_time", "complete"),
        ]
        await session.close()
