"""Both time synchronization procedures through the real Master against third-party
outstations run as subprocesses, yadnp3 (opendnp3) and dnp3py: the outstation's time callback
fires once, by the object the procedure writes (g50v3 after RECORD_CURRENT_TIME; g50v1 after
DELAY_MEASURE), with a time close to its own clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pytest

from gridwire.errors import NotAllowed
from gridwire.master import Master, OutstationSettings
from tests.support.peers import OutstationPeer, dnp3py_outstation, yadnp3_outstation

pytestmark = [pytest.mark.interop, pytest.mark.serial]  # CLOSE_MS bounds a round trip

NAME = "out"
PEERS: dict[str, Callable[..., AbstractContextManager[OutstationPeer]]] = {
    "yadnp3": yadnp3_outstation,
    "dnp3py": dnp3py_outstation,
}
# On one machine both clocks are the same clock: what the outstation is told differs from
# its own reading by the loopback delay and the processing of two requests.
CLOSE_MS = 500


@pytest.fixture(params=sorted(PEERS))
def peer(request: pytest.FixtureRequest) -> Iterator[OutstationPeer]:
    with PEERS[request.param](points=2) as outstation:
        yield outstation


def settings(port: int) -> OutstationSettings:
    return OutstationSettings(name=NAME, host="127.0.0.1", port=port, manual=True, confirm=True)


@pytest.mark.parametrize(
    ("procedure", "first", "via"),
    [("lan", "RECORD_CURRENT_TIME", "g50v3"), ("non_lan", "DELAY_MEASURE", "g50v1")],
)
async def test_synchronize_time(peer: OutstationPeer, procedure: str, first: str, via: str) -> None:
    master = Master(allow_control=True)
    try:
        await master.add(settings(peer.port))
        result = await master.synchronize_time(NAME, procedure)
        assert [e.function for e in result.exchanges] == [first, "WRITE"]
        assert all(e.outcome == "complete" for e in result.exchanges)
        assert (result.written, result.accepted) == (True, True)
        assert result.time_ms is not None
        if procedure == "non_lan":
            assert result.delay_ms is not None and 0 <= result.delay_ms < CLOSE_MS
        else:
            assert result.delay_ms is None
        written = await peer.aexpect("time_write", via=via)
        if procedure == "non_lan":
            assert written["ms"] == result.time_ms
        else:
            # The outstation sets its clock to the time written plus what its clock moved
            # since it recorded the arrival of RECORD_CURRENT_TIME.
            assert 0 <= written["ms"] - result.time_ms < CLOSE_MS
        assert abs(written["offset_ms"]) < CLOSE_MS
        await asyncio.sleep(0.3)
        assert len(peer.received("time_write")) == 1
    finally:
        await master.close()


async def test_write_time(peer: OutstationPeer) -> None:
    master = Master(allow_control=True)
    try:
        await master.add(settings(peer.port))
        exchange = await master.write_time(NAME)
        assert exchange.outcome == "complete"
        written = await peer.aexpect("time_write", via="g50v1")
        assert abs(written["offset_ms"]) < CLOSE_MS
    finally:
        await master.close()


async def test_without_control_nothing_is_sent() -> None:
    with yadnp3_outstation(points=2) as peer:
        master = Master()
        try:
            await master.add(settings(peer.port))
            sent_before = len([f for f in master.trace(NAME) if f.direction == "sent"])
            for procedure in ("lan", "non_lan"):
                with pytest.raises(NotAllowed):
                    await master.synchronize_time(NAME, procedure)
            sent_after = len([f for f in master.trace(NAME) if f.direction == "sent"])
            assert sent_after == sent_before
            await asyncio.sleep(0.3)
            assert peer.received("time_write") == []
        finally:
            await master.close()
