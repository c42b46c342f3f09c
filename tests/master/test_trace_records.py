"""Frame records are built when asked for: what the log answers later must be what it
answered (or published) when the frame was logged, and a session publishes a record for
every frame only to listeners."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.link import LinkReader
from gridwire.master.records import FrameRecord
from gridwire.master.trace import FrameLog
from tests.master.scripted import ScriptedOutstation, response
from tests.master.test_session import CLASS0, TWO_BINARIES, drain, make, request_frame
from tests.master.test_session_store import read_answered
from tests.master.wire import READ_FRAME


@given(
    st.lists(st.tuples(st.booleans(), st.binary(max_size=400)), max_size=8),
    st.integers(1, 6),
    st.integers(0, 12),
)
@settings(max_examples=300, deadline=None)
def test_records_read_later_are_those_given_when_logged(
    writes: list[tuple[bool, bytes]], limit: int, after: int
) -> None:
    log = FrameLog(limit)
    given_then: list[FrameRecord] = []
    for sent, octets in writes:
        # Octets written, or what the link reader makes of the same octets received; a
        # read frame between them so that every kind of entry occurs.
        if sent:
            given_then.append(log.add_sent(octets, float(len(given_then))))
        else:
            for item in LinkReader().feed(octets):
                given_then.append(log.add_received(item, float(len(given_then))))
        given_then.append(log.add_sent(READ_FRAME, float(len(given_then))))
    kept = given_then[-limit:] if given_then else []
    assert log.after() == kept
    assert log.after(after) == [r for r in kept if r.id > after]
    assert [log.record(r.id) for r in kept] == kept
    assert log.pcap(after).frames == len([r for r in kept if r.id > after])


async def test_listeners_get_every_frame_as_the_trace_has_it() -> None:
    async with ScriptedOutstation() as out:
        session, bus = make(out.port, confirm=True)
        sub = bus.subscribe()
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        out.send(response(0, TWO_BINARIES, con=True))
        await call
        await out.frame()  # the confirmation
        published = [u["frame"] for u in drain(sub, "frame")]
        assert published == session.frames.after()
        assert [r.summary for r in published] == [
            "sent PRI UNCONFIRMED_USER_DATA 1->1024 | TR FIR FIN seq=0 | AL READ seq=0 FIR FIN",
            "received PRI UNCONFIRMED_USER_DATA 1024->1 | TR FIR FIN seq=0"
            " | AL RESPONSE seq=0 FIR FIN CON | IIN -",
            "sent PRI UNCONFIRMED_USER_DATA 1->1024 | TR FIR FIN seq=1 | AL CONFIRM seq=0 FIR FIN",
        ]
        await session.close()


async def test_without_listeners_the_trace_is_whole_all_the_same() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port)
        await read_answered(out, session, TWO_BINARIES)
        records = session.frames.after()
        assert [(r.id, r.direction) for r in records] == [(1, "sent"), (2, "received")]
        assert records[0].hex == request_frame(0, 0, 0x01, CLASS0).hex()
        await session.close()
