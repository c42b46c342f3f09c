"""operate through the real Master against third-party outstations run as subprocesses:
yadnp3 (opendnp3, C++) and dnp3py (pure Python). Every control is checked against what the
outstation's command handler reports it received, and that it received it once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, asynccontextmanager
from typing import Any

import pytest

from gridwire.master import Master, OutstationSettings
from gridwire.master.controls import build_body
from tests.support.peers import OutstationPeer, dnp3py_outstation, yadnp3_outstation

pytestmark = pytest.mark.interop

NAME = "out"
PEERS: dict[str, Callable[..., AbstractContextManager[OutstationPeer]]] = {
    "yadnp3": yadnp3_outstation,
    "dnp3py": dnp3py_outstation,
}


@asynccontextmanager
async def connected(peer: OutstationPeer) -> AsyncIterator[Master]:
    master = Master(allow_control=True)
    try:
        # manual: no task of the master's own runs, so the outstation sees only the requests
        # of the test; confirm: unsolicited responses (yadnp3's null one) are still confirmed.
        await master.add(
            OutstationSettings(
                name=NAME, host="127.0.0.1", port=peer.port, manual=True, confirm=True
            )
        )
        yield master
    finally:
        await master.close()


@pytest.fixture(params=sorted(PEERS))
def peer(request: pytest.FixtureRequest) -> Iterator[OutstationPeer]:
    with PEERS[request.param](points=10) as outstation:
        yield outstation


async def received_once(peer: OutstationPeer, event: str, **fields: Any) -> dict[str, Any]:
    """The one ``event`` the outstation printed with these fields; a moment later there is
    still only one of them."""
    found = await peer.aexpect(event, **fields)
    await asyncio.sleep(0.3)
    assert len(peer.received(event, index=fields["index"])) == 1
    return found


async def test_direct_operate_latch_on(peer: OutstationPeer) -> None:
    async with connected(peer) as master:
        result = await master.operate(NAME, {"bo": {"2": True}})
        assert (result.operated, result.accepted) == (True, True)
        [status] = result.statuses
        assert (status.status, status.echoed, status.value) == ("SUCCESS", True, "LATCH_ON")
        await received_once(
            peer, "operate", kind="crob", index=2, op_type="LATCH_ON", count=1, status="SUCCESS"
        )
        assert peer.received("select") == []


async def test_select_then_operate_pulse(peer: OutstationPeer) -> None:
    async with connected(peer) as master:
        result = await master.operate(NAME, {"bo": {"1": "PULSE_ON"}}, mode="select")
        assert [e.function for e in result.exchanges] == ["SELECT", "OPERATE"]
        assert [e.sequence for e in result.exchanges] == [
            result.exchanges[0].sequence,
            (result.exchanges[0].sequence + 1) % 16,
        ]
        assert (result.operated, result.accepted) == (True, True)
        select = await received_once(peer, "select", kind="crob", index=1, op_type="PULSE_ON")
        operate = await received_once(peer, "operate", kind="crob", index=1, op_type="PULSE_ON")
        assert (select["on_ms"], operate["on_ms"], operate["off_ms"]) == (100, 100, 100)


@pytest.mark.parametrize(
    ("value", "variation", "kind", "received"),
    [
        (12, None, "int32", 12),
        (12.5, None, "float32", 12.5),
        (-300, 2, "int16", -300),
        (0.25, 4, "double64", 0.25),
    ],
)
async def test_analog_output_direct(
    peer: OutstationPeer, value: float, variation: int | None, kind: str, received: float
) -> None:
    async with connected(peer) as master:
        result = await master.operate(NAME, {"ao": {"3": value}}, variation=variation)
        assert result.accepted is True
        assert result.statuses[0].echoed is True
        event = await received_once(peer, "operate", index=3, status="SUCCESS")
        if peer.program == "yadnp3_outstation":
            assert event["kind"] == kind  # dnp3py reports every variation alike
        assert event["value"] == received


async def test_analog_output_select_then_operate(peer: OutstationPeer) -> None:
    async with connected(peer) as master:
        result = await master.operate(NAME, {"ao": {"4": 7}}, mode="select")
        assert (result.operated, result.accepted) == (True, True)
        await received_once(peer, "select", index=4, value=7)
        await received_once(peer, "operate", index=4, value=7)


async def test_direct_operate_no_ack(peer: OutstationPeer) -> None:
    async with connected(peer) as master:
        result = await master.operate(
            NAME, {"bo": {"5": False}, "ao": {"6": 99}}, mode="direct_no_ack"
        )
        assert (result.operated, result.accepted) == (True, None)
        assert result.exchanges[0].outcome == "sent"
        await received_once(peer, "operate", kind="crob", index=5, op_type="LATCH_OFF")
        await received_once(peer, "operate", index=6, value=99)


async def test_refused_control(peer: OutstationPeer) -> None:
    async with connected(peer) as master:
        await asyncio.to_thread(peer.answer, "NOT_AUTHORIZED", 1)
        result = await master.operate(NAME, {"bo": {"2": True}})
        assert (result.operated, result.accepted) == (True, False)
        assert result.statuses[0].status == "NOT_AUTHORIZED"
        await received_once(peer, "operate", index=2, status="NOT_AUTHORIZED")


async def test_refused_select_is_not_operated(peer: OutstationPeer) -> None:
    async with connected(peer) as master:
        await asyncio.to_thread(peer.answer, "LOCAL", 1, "select")
        result = await master.operate(NAME, {"bo": {"2": True}}, mode="select")
        assert (result.operated, result.accepted) == (False, False)
        assert result.statuses[0].status == "LOCAL"
        await received_once(peer, "select", index=2, status="LOCAL")
        await asyncio.sleep(0.3)
        assert peer.received("operate") == []


async def test_operate_without_select_draws_no_select(peer: OutstationPeer) -> None:
    async with connected(peer) as master:
        # OPERATE sent on its own, with no SELECT before it.
        exchange = await master.request(NAME, "OPERATE", build_body({"bo": {"2": True}}))
        assert exchange.outcome == "complete"
        [echo] = exchange.objects
        assert (echo.group, echo.index) == (12, 2)
        assert echo.value.status == "NO_SELECT"  # type: ignore[union-attr]
        await asyncio.sleep(0.3)
        assert peer.received("operate") == []


async def test_several_controls_in_one_request() -> None:
    with yadnp3_outstation(points=10) as peer:
        async with connected(peer) as master:
            result = await master.operate(
                NAME, {"bo": {"1": "PULSE_ON", "2": False}, "ao": {"3": 5, "4": 2.5}}
            )
            assert result.accepted is True
            assert [(s.type, s.index, s.variation) for s in result.statuses] == [
                ("bo", 1, 1),
                ("bo", 2, 1),
                ("ao", 3, 1),
                ("ao", 4, 3),
            ]
            for index in (1, 2, 3, 4):
                await received_once(peer, "operate", index=index, status="SUCCESS")


async def test_control_of_a_point_the_outstation_lacks() -> None:
    with yadnp3_outstation(points=10) as peer:
        async with connected(peer) as master:
            result = await master.operate(NAME, {"bo": {"20": True}})
            assert result.accepted is False
            assert result.statuses[0].status == "NOT_SUPPORTED"
