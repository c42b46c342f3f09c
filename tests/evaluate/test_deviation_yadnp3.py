"""The deviation checks (LINK-*, TRANSPORT-*, CONFIRM-*) against a stack we did not write:
yadnp3's (opendnp3's) outstation, through the whole evaluation run (survey, held master,
restores). opendnp3 serves no IEEE 1815.2 profile; the checks need only a served point and
events, so the master is given a small profile of the test's own: the first five analog and
binary inputs of the peer's generic database (tests/peers/yadnp3_outstation.py), class 1
as opendnp3 makes every point. While the checks run, the test moves analog input 1 every
0.1 s through the peer, so events keep coming."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from gridwire.derops import DerMaster
from gridwire.evaluate import Options, evaluate
from gridwire.evaluate.catalogue import listing
from gridwire.master import OutstationSettings
from tests.support.peers import OutstationPeer, yadnp3_outstation

pytestmark = [pytest.mark.interop, pytest.mark.serial]  # opendnp3's confirm timing

NAME = "opendnp3"
LINK = ["LINK-001", "LINK-002", "LINK-003", "LINK-004", "TRANSPORT-001", "TRANSPORT-002"]
CONFIRM = ["CONFIRM-001", "CONFIRM-002", "CONFIRM-003"]


def small_map(path: Path) -> Path:
    """A gridwire map of AI0-AI4 and BI0-BI4, class 1, as the peer serves them."""
    points = [
        {"kind": kind, "index": index, "name": f"{kind} {index}", "event_class": 1}
        for kind in ("AI", "BI")
        for index in range(5)
    ]
    document = {
        "format": "gridwire.der-map",
        "version": 1,
        "title": "opendnp3's generic database, as a profile of the test's own",
        "points": points,
    }
    path.write_bytes(orjson.dumps(document))
    return path


@contextlib.asynccontextmanager
async def moving(peer: OutstationPeer) -> AsyncIterator[None]:
    """Analog input 1 takes a new value every 0.1 s for the duration of the block."""

    async def move() -> None:
        value = 0
        while True:
            value += 1
            await peer.acall({"cmd": "update", "type": "analog", "index": 1, "value": value})
            await asyncio.sleep(0.1)

    mover = asyncio.create_task(move())
    try:
        yield
    finally:
        mover.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await mover


async def test_the_deviation_checks_pass_against_opendnp3(tmp_path: Path) -> None:
    with yadnp3_outstation(points=5) as peer:
        master = DerMaster(tables=small_map(tmp_path / "map.json"))
        try:
            settings = OutstationSettings(
                name=NAME, host="127.0.0.1", port=peer.port, profile="ieee1815.2"
            )
            await master.add(settings)
            await master.idle(NAME)
            async with moving(peer):
                report = await evaluate(
                    master, NAME, Options(["deviation"], allow_deviations=True, settle=3)
                )
        finally:
            await master.close()
    verdicts = {r.id: r.verdict for r in report.results}
    assert verdicts == dict.fromkeys(LINK + CONFIRM, "passed"), report.results
    by_id = {r.id: r for r in report.results}
    # The titles are the catalogue's, as for any other outstation (D120).
    assert {r.id: r.title for r in report.results} == {
        c.id: c.title for c in listing() if c.set == "deviation"
    }
    # opendnp3's link layer trusts a header's LENGTH: after a frame overstating it, the
    # probes that follow go to fill the frame it claimed, and a later one is answered.
    assert "answered again at probe" in by_id["LINK-004"].detail
    assert all(" events reported again " in by_id[id].detail for id in CONFIRM)
    # Its events carry no time (none was given to the update): the check says it could
    # not tell whether they came back.
    assert any("carry no time" in note for note in by_id["CONFIRM-001"].notes)
    # The peer saw the deviated probes' answers withheld: each check sent requests.
    assert all(by_id[id].requests >= 4 for id in LINK)
