"""One outstation's session against a scripted outstation: the octets the master writes are
compared with frames laid out by hand (tests/master/wire.py, the tests' own CRC), and the
outstation's answers are written literally.

Request frames from the master carry CONTROL C4 (DIR|PRM|UNCONFIRMED_USER_DATA) from 1 to
1024; their user data is a transport header (C0 | transport sequence, FIR|FIN) and the
application fragment. A response from the outstation is built by scripted.response().
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import ConnectionFailed, NotAllowed
from gridwire.master.bus import EventBus, Subscriber
from gridwire.master.session import Session
from gridwire.master.settings import OutstationSettings
from gridwire.process.clock import SystemClock
from tests.master.scripted import ScriptedOutstation, response
from tests.master.wire import INTEGRITY, from_master, from_outstation

CLASS0 = bytes.fromhex("3c 01 06")  # g60v1 qualifier 06: class 0
# g1v2 (binary input with flags), qualifier 00 start 0 stop 1: index 0 flags 81 (ONLINE and
# state 1), index 1 flags 01 (ONLINE, state 0).
TWO_BINARIES = bytes.fromhex("01 02 00 00 01 81 01")


def request_frame(tr_seq: int, app_seq: int, function: int, body: bytes) -> bytes:
    """A one-segment request: transport C0|tr_seq, application C0|app_seq (FIR|FIN)."""
    return from_master(bytes((0xC0 | tr_seq, 0xC0 | app_seq, function)) + body)


def make(port: int, *, allow_control: bool = False, **fields: Any) -> tuple[Session, EventBus]:
    values: dict[str, Any] = {"manual": True, "response_timeout": 2.0, "reconnect": None}
    values.update(fields)
    settings = OutstationSettings(name="o", host="127.0.0.1", port=port, **values)
    bus = EventBus()
    return Session(settings, allow_control=allow_control, clock=SystemClock(), bus=bus), bus


def drain(sub: Subscriber, event: str) -> list[dict[str, Any]]:
    out = []
    while (update := sub.get_nowait()) is not None:
        if update[0] == event:
            out.append(update[1])
    return out


async def test_a_read_and_its_response() -> None:
    async with ScriptedOutstation() as out:
        session, bus = make(out.port)
        sub = bus.subscribe()
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        out.send(response(0, TWO_BINARIES))
        result = await call
        record = result.record
        assert (record.function, record.outcome, record.sequence) == ("READ", "complete", 0)
        assert record.request == "c0013c0106"
        assert record.fragments == 1 and record.object_count == 2
        assert [(o.type, o.index, o.value, o.flags) for o in record.objects] == [
            ("bi", 0, True, ["ONLINE"]),
            ("bi", 1, False, ["ONLINE"]),
        ]
        assert record.task is None and record.retries == 0 and record.undecoded == []
        assert result.sent_ms is not None and result.received_ms is not None
        assert [v.value for v in session.store.values(0.0)] == [True, False]
        exchanges = drain(sub, "exchange")
        assert [e["exchange"] for e in exchanges] == [record]
        await session.close()


async def test_a_body_built_by_a_function_is_built_when_its_turn_comes() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, allow_control=True)
        await session.connect()
        built: list[str] = []

        def body() -> bytes:
            built.append("now")
            return bytes.fromhex("50 01 00 07 07 00")  # g80v1 index 7 := 0 (clear restart)

        read = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        write = asyncio.create_task(session.exchange(FunctionCode.WRITE, body))
        await asyncio.sleep(0.05)
        assert built == []  # waiting behind the read in flight
        out.send(response(0, b""))
        await read
        assert await out.frame() == request_frame(1, 1, 0x02, bytes.fromhex("50 01 00 07 07 00"))
        assert built == ["now"]
        out.send(response(1, b""))
        assert (await write).record.outcome == "complete"
        await session.close()


async def test_each_fragment_asking_for_it_is_confirmed_with_its_sequence() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, confirm=True)
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        # First fragment: FIR, CON, not FIN, seq 0 -> CONFIRM: transport C1, application C0 00.
        out.send(response(0, TWO_BINARIES, con=True, fin=False))
        assert await out.frame() == request_frame(1, 0, 0x00, b"")
        # Last fragment: FIN, CON, not FIR, seq 1 -> CONFIRM seq 1: transport C2, app C1 00.
        out.send(response(1, TWO_BINARIES, con=True, fir=False, tr_seq=1))
        assert await out.frame() == request_frame(2, 1, 0x00, b"")
        record = (await call).record
        assert (record.outcome, record.fragments, record.object_count) == ("complete", 2, 4)
        await session.close()


async def test_a_confirm_leaves_before_the_frames_it_answers_are_logged() -> None:
    # The CONFIRM is handed to the connection before the frames of the fragment it answers
    # are logged; the trace and the frame updates still list those frames first, with the
    # time they arrived.
    async with ScriptedOutstation() as out:
        session, bus = make(out.port, confirm=True)
        sub = bus.subscribe()
        await session.connect()
        conn = session.wire.connection
        assert conn is not None
        logged_at_write: list[int] = []
        write = conn.write

        def counting_write(data: bytes) -> None:
            logged_at_write.append(len(session.frames))
            write(data)

        conn.write = counting_write  # type: ignore[method-assign]
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        request = await out.frame()
        first = response(0, TWO_BINARIES, con=True, fin=False)
        out.send(first)
        confirm_0 = await out.frame()
        last = response(1, TWO_BINARIES, con=True, fir=False, tr_seq=1)
        out.send(last)
        confirm_1 = await out.frame()
        result = await call
        assert result.record.outcome == "complete"
        assert (confirm_0, confirm_1) == (
            request_frame(1, 0, 0x00, b""),
            request_frame(2, 1, 0, b""),
        )
        # written: the request with nothing logged, each CONFIRM before its fragment's frame
        assert logged_at_write == [0, 1, 3]
        trace = session.frames.after()
        assert [(r.direction, r.hex) for r in trace] == [
            ("sent", request.hex()),
            ("received", first.hex()),
            ("sent", confirm_0.hex()),
            ("received", last.hex()),
            ("sent", confirm_1.hex()),
        ]
        assert trace[1].time_ms <= trace[2].time_ms and trace[3].time_ms <= trace[4].time_ms
        published = [update["frame"].id for update in drain(sub, "frame")]
        assert published == [r.id for r in trace]
        # the two fragments are let go of once the next request has left, not as the
        # caller lets go of the result (freeing a large scan's lists delayed its answer)
        assert session._spent is result.responses
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(3, 1, 0x01, CLASS0)
        assert session._spent is None
        out.send(response(1, TWO_BINARIES))
        assert (await call).record.fragments == 1
        assert session._spent is None  # one fragment: nothing kept
        await session.close()


async def test_timeout_then_read_retries_with_the_same_sequence() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, response_timeout=0.3, read_retries=2)
        await session.connect()
        record = (await session.exchange(FunctionCode.READ, CLASS0)).record
        # Sent three times, application sequence 0 each time, transport 0, 1, 2.
        for tr_seq in range(3):
            assert await out.frame() == request_frame(tr_seq, 0, 0x01, CLASS0)
        assert (record.outcome, record.retries, record.fragments) == ("timeout", 2, 0)
        # Anything else is never sent again: ENABLE_UNSOLICITED class 1 (g60v2), seq 1.
        body = bytes.fromhex("3c 02 06")
        record = (await session.exchange(FunctionCode.ENABLE_UNSOLICITED, body)).record
        assert await out.frame() == request_frame(3, 1, 0x14, body)
        assert await out.no_frame(0.5)
        assert (record.outcome, record.retries) == ("timeout", 0)
        await session.close()


async def test_a_read_answered_in_part_is_not_sent_again() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, response_timeout=0.3, read_retries=3, confirm=False)
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        await out.frame()
        out.send(response(0, TWO_BINARIES, fin=False))
        record = (await call).record
        assert (record.outcome, record.fragments, record.retries) == ("timeout", 1, 0)
        assert record.object_count == 2  # what did arrive is in the result
        assert await out.no_frame(0.3)
        await session.close()


async def test_a_response_with_another_sequence_is_not_taken() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, response_timeout=0.4)
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        await out.frame()
        out.send(response(5, TWO_BINARIES))
        record = (await call).record
        assert (record.outcome, record.fragments) == ("timeout", 0)
        await session.close()


async def test_outstanding_request_is_abandoned_when_the_connection_ends() -> None:
    async with ScriptedOutstation() as out:
        session, bus = make(out.port)
        sub = bus.subscribe()
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        await out.frame()
        out.drop()
        record = (await call).record
        assert record.outcome == "abandoned"
        assert session.state == "disconnected"
        connections = drain(sub, "connection")
        assert connections == [
            {"outstation": "o", "connected": True},
            {"outstation": "o", "connected": False},
        ]
        with pytest.raises(ConnectionFailed):
            await session.exchange(FunctionCode.READ, CLASS0)
        await session.close()


async def test_unsolicited_response_is_confirmed_and_published() -> None:
    async with ScriptedOutstation() as out:
        # The null unsolicited response (UNS, CON, seq 0, IIN1 80 DEVICE_RESTART) at connect.
        out.on_connect = response(0, iin=b"\x80\x00", con=True, unsolicited=True)
        session, bus = make(out.port, confirm=True)
        sub = bus.subscribe()
        await session.connect()
        # CONFIRM with UNS: transport C0, application D0 (FIR|FIN|UNS seq 0) 00.
        assert await out.frame() == request_frame(0, 0x10, 0x00, b"")
        # Then an unsolicited response with two binaries, seq 1.
        out.send(response(1, TWO_BINARIES, con=True, unsolicited=True, tr_seq=1))
        assert await out.frame() == request_frame(1, 0x11, 0x00, b"")
        await asyncio.sleep(0.05)
        published = drain(sub, "unsolicited")
        assert [p["indications"] for p in published] == [["DEVICE_RESTART"], []]
        assert [o.index for o in published[1]["objects"]] == [0, 1]
        assert session.store.get("bi", 0) is not None
        await session.close()


async def test_manual_sends_no_confirmation() -> None:
    async with ScriptedOutstation() as out:
        out.on_connect = response(0, iin=b"\x80\x00", con=True, unsolicited=True)
        session, _ = make(out.port)  # manual, confirm left out: no confirmations
        await session.connect()
        assert await out.no_frame(0.5)
        assert session.indications is not None and session.indications.names == ["DEVICE_RESTART"]
        await session.close()


async def test_the_wire_gate_and_requests_that_take_no_response() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port)
        await session.connect()
        with pytest.raises(NotAllowed):
            await session.exchange(FunctionCode.COLD_RESTART)
        with pytest.raises(NotAllowed):
            session._send("request", FunctionCode.WRITE, [b"\x05\x64"])
        assert await out.no_frame(0.3)
        await session.close()
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, allow_control=True)
        await session.connect()
        # IMMED_FREEZE_NR (08) of every counter (g20v0 06): outcome sent, nothing awaited.
        record = (await session.exchange(FunctionCode.IMMED_FREEZE_NR, b"\x14\x00\x06")).record
        assert record.outcome == "sent"
        assert await out.frame() == request_frame(0, 0, 0x08, b"\x14\x00\x06")
        # A broadcast goes to 0xFFFF: CONTROL C4, destination FF FF.
        record = (await session.exchange(FunctionCode.READ, CLASS0, broadcast=0xFFFF)).record
        assert (record.outcome, record.broadcast) == ("sent", 0xFFFF)
        tpdu = bytes((0xC1, 0xC1, 0x01)) + CLASS0
        from tests.master.wire import frame

        assert await out.frame() == frame(0xC4, 0xFFFF, 1, tpdu)
        await session.close()


async def test_link_status_request_is_answered() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port)
        await session.connect()
        await out.accepted()
        # REQUEST_LINK_STATUS (CONTROL 49) from 1024 to 1 -> LINK_STATUS (CONTROL 8B).
        from tests.master.wire import frame

        out.send(frame(0x49, 1, 1024, b""))
        assert await out.frame() == frame(0x8B, 1024, 1, b"")
        await session.close()


async def test_tasks_on_connect_and_on_indications() -> None:
    async with ScriptedOutstation() as out:
        session, bus = make(out.port, allow_control=True, manual=False, confirm=True)
        sub = bus.subscribe()
        await session.connect()
        # startup: the integrity poll, classes 1, 2, 3 then 0.
        assert await out.frame() == request_frame(0, 0, 0x01, INTEGRITY)
        assert session.runner.running == "startup"
        # Answer with DEVICE_RESTART and CLASS_1_EVENTS (IIN1 0x82).
        out.send(response(0, iin=b"\x82\x00"))
        # clear_restart: WRITE g80v1 start-stop 7..7 value 0.
        assert await out.frame() == request_frame(1, 1, 0x02, bytes.fromhex("50 01 00 07 07 00"))
        out.send(response(1, iin=b"\x02\x00", tr_seq=1))
        # events_when_indicated: READ class 1 (g60v2).
        assert await out.frame() == request_frame(2, 2, 0x01, bytes.fromhex("3c 02 06"))
        out.send(response(2, tr_seq=2))
        await asyncio.wait_for(session.idle(), 5)
        assert session.runner.due == []
        tasks = [e["exchange"].task for e in drain(sub, "exchange")]
        assert tasks == ["startup", "clear_restart", "events_when_indicated"]
        await session.close()


async def test_a_task_turned_off_while_due_is_not_done() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, manual=False, tasks={"startup": False})
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        await out.frame()
        # While the read waits, an unsolicited response (no CON) says CLASS_1_EVENTS.
        out.send(response(0, iin=b"\x02\x00", unsolicited=True))
        await asyncio.sleep(0.1)
        assert session.runner.due == ["events_when_indicated"]
        assert session.status().tasks_due == ["events_when_indicated"]
        session.set_tasks({"events_when_indicated": False})
        assert session.runner.due == []
        out.send(response(0))
        assert (await call).record.outcome == "complete"
        await asyncio.wait_for(session.idle(), 5)
        assert await out.no_frame(0.3)
        await session.close()


async def test_a_task_turned_on_acts_on_the_indication_already_seen() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(
            out.port,
            allow_control=True,
            manual=False,
            tasks={"startup": False, "clear_restart": False},
        )
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(0, 0, 0x01, CLASS0)
        # DEVICE_RESTART (IIN1 0x80) while clear_restart is off: nothing is due.
        out.send(response(0, iin=b"\x80\x00"))
        assert (await call).record.indications == ["DEVICE_RESTART"]
        assert session.runner.due == [] and await out.no_frame(0.2)
        # Turned on, it clears the restart the last response showed: WRITE g80v1 7..7 := 0.
        session.set_tasks({"clear_restart": True})
        assert await out.frame() == request_frame(1, 1, 0x02, bytes.fromhex("50 01 00 07 07 00"))
        out.send(response(1, tr_seq=1))
        await asyncio.wait_for(session.idle(), 5)
        # The last response carried no indication: turning a task off and on sends nothing.
        session.set_tasks({"clear_restart": False})
        session.set_tasks({"clear_restart": True})
        assert session.runner.due == [] and await out.no_frame(0.3)
        await session.close()


async def test_reconnect_after_loss() -> None:
    async with ScriptedOutstation() as out:
        session, _ = make(out.port, reconnect=0.2)
        await session.connect()
        await out.accepted()
        out.drop()
        for _ in range(100):
            await asyncio.sleep(0.05)
            if out.connections == 2 and session.connected:
                break
        assert out.connections == 2 and session.state == "connected"
        await session.disconnect()
        await asyncio.sleep(0.5)
        assert out.connections == 2  # no reconnection after disconnect
        await session.close()


async def test_connect_with_wait_retries_once_a_second() -> None:
    out = ScriptedOutstation()  # not listening until entered below
    session, _ = make(out.port)
    started = asyncio.get_running_loop().time()
    with pytest.raises(ConnectionFailed, match="cannot connect"):
        await session.connect(wait=1.2)
    assert asyncio.get_running_loop().time() - started >= 1.0
    # Now start listening while a wait is under way: the next attempt succeeds.
    attempt = asyncio.create_task(session.connect(wait=10))
    await asyncio.sleep(0.3)
    async with out:
        await asyncio.wait_for(attempt, 5)
        assert session.connected
        await session.close()


async def test_an_outstation_frame_from_another_address_is_ignored() -> None:
    async with ScriptedOutstation() as out:
        session, bus = make(out.port, response_timeout=0.4)
        sub = bus.subscribe()
        await session.connect()
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        await out.frame()
        from tests.master.wire import frame

        # The right response, but from source 7 (not 1024).
        out.send(frame(0x44, 1, 7, bytes((0xC0, 0xC0, 0x81, 0, 0))))
        record = (await call).record
        assert (record.outcome, record.sequence) == ("timeout", 0)
        assert [e["exchange"] for e in drain(sub, "exchange")] == [record]
        # Late, with no request waiting: transport C1, application C0 (seq 0) 81, IIN1 80
        # (DEVICE_RESTART), IIN2 00, and the two binaries. Ignored: neither its indications
        # nor its objects are taken in, nothing is published, the connection stays.
        out.send(from_outstation(bytes((0xC1, 0xC0, 0x81, 0x80, 0x00)) + TWO_BINARIES))
        await asyncio.sleep(0.2)
        assert session.connected and session.state == "connected"
        assert session.indications is None and session.store.values(0.0) == []
        published = []
        while (update := sub.get_nowait()) is not None:
            published.append(update[0])
        assert published == ["frame"]  # the late frame itself, in the trace; nothing else
        # The next READ goes out with the next sequence numbers (transport 1, application 1),
        # and its own answer completes it.
        call = asyncio.create_task(session.exchange(FunctionCode.READ, CLASS0))
        assert await out.frame() == request_frame(1, 1, 0x01, CLASS0)
        out.send(response(1, TWO_BINARIES, tr_seq=2))
        record = (await call).record
        assert (record.outcome, record.sequence, record.object_count) == ("complete", 1, 2)
        assert record.indications == []
        assert [e["exchange"] for e in drain(sub, "exchange")] == [record]
        await session.close()
