"""``gridwire evaluate`` (a subprocess) against a stack we did not write: yadnp3's (opendnp3's)
outstation serving a map of our own (tests/evaluate/data/yadnp3-service-map.json: the run
state and connect points of IEEE 1815.2, in its numbering), its command handler latching
outputs and mirroring them to inputs, and printing each control as it arrived
(tests/peers/yadnp3_der.py). Stopped mid-check by signals, or killed and then ``--restore``:
the outstation's own record (the value each output holds after the last control it took)
and a read-only master of the test's own both find every output as before the run."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gridwire.derops import DerMaster
from gridwire.derops.read import read_points
from gridwire.master import OutstationSettings
from tests.evaluate.stops import relayed, run_evaluate, start_evaluate
from tests.support.peers import OutstationPeer, yadnp3_der

pytestmark = pytest.mark.interop

MAP = Path(__file__).parent / "data" / "yadnp3-service-map.json"
OUTPUTS = {
    (p["kind"], p["index"]): p["value"]
    for p in json.loads(MAP.read_text())["points"]
    if p["kind"] in ("BO", "AO")
}
FOLLOWER = "PSIG-001"  # after both: left not run when the run is stopped


@pytest.fixture(scope="module")
def peer() -> Iterator[OutstationPeer]:
    with yadnp3_der(MAP) as served:
        yield served


async def _read(port: int) -> dict[str, object]:
    master = DerMaster(allow_control=False, tables=MAP)
    try:
        await master.add(
            OutstationSettings(
                name="look", host="127.0.0.1", port=port, profile="ieee1815.2", manual=True
            )
        )
        points = list(master.session("look").settings and _profile(master).points)
        found, _ = await read_points(master, "look", points)
        return {r.address: r.raw for r in found}
    finally:
        await master.close()


def _profile(master: DerMaster):  # type: ignore[no-untyped-def]
    from gridwire.derops.profile import point_map_of

    return point_map_of(master, "look")


def read_only(port: int) -> dict[str, object]:
    """Every point of the map, read by a master that may not command."""
    return asyncio.run(_read(port))


def held(peer: OutstationPeer) -> dict[tuple[str, int], object]:
    """What each output holds by opendnp3's own record: the map's value, or the value the
    last control it took (SUCCESS) set."""
    holding = dict(OUTPUTS)
    for event in peer.received("operate"):
        if event["status"] == "SUCCESS" and event.get("raw") is not None:
            kind = "BO" if event["kind"] == "crob" else "AO"
            holding[(kind, event["index"])] = event["raw"]
    return holding


def _evaluate_args(tmp_path: Path, check: str) -> list[str]:
    return [
        "--tables", str(MAP), "--allow-control", "--settle", "2", "--check", check,
        "--check", FOLLOWER, "--report", str(tmp_path / "r.json"),
    ]  # fmt: skip


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT twice"])
@pytest.mark.parametrize("check", ["CONN-001", "SERV-001"])
def test_stopped_mid_check_opendnp3_holds_what_it_held(
    peer: OutstationPeer, tmp_path: Path, check: str, stop: str
) -> None:
    before = read_only(peer.port)
    assert held(peer) == OUTPUTS
    sent = [signal.SIGTERM] if stop == "SIGTERM" else [signal.SIGINT, signal.SIGINT]
    with relayed(peer.port, 0.2) as relay:  # each answer held: the check lasts seconds
        run = start_evaluate(relay.port, tmp_path / "state", *_evaluate_args(tmp_path, check))
        run.wait_for_command()
        for number, each in enumerate(sent):
            if number:
                time.sleep(0.3)
            os.killpg(run.proc.pid, each)
        code, out, err = run.finish()
    assert "Traceback" not in err, err
    assert code == 3, (out, err)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["left_changed"] == [] and report["summary"]["incomplete"] is True
    results = {r["id"]: r for r in report["results"]}
    assert results[check]["interrupted"] is (len(sent) == 2), results[check]
    assert any(e["status"] == "SUCCESS" for e in peer.received("operate"))  # it commanded
    assert held(peer) == OUTPUTS
    assert read_only(peer.port) == before


def test_killed_mid_check_then_restored_opendnp3_holds_what_it_held(
    peer: OutstationPeer, tmp_path: Path
) -> None:
    before = read_only(peer.port)
    state = tmp_path / "state"
    with relayed(peer.port, 0.2) as relay:
        run = start_evaluate(relay.port, state, *_evaluate_args(tmp_path, "SERV-001"))
        run.wait_for_line('operate on der {"controls":[["bo",2,true,null]]')  # the stop
        os.killpg(run.proc.pid, signal.SIGKILL)
        run.finish()
        assert held(peer) != OUTPUTS  # left as the check had it
        journal = next(state.glob("journal-*.json"))
        code, _, err = run_evaluate(relay.port, state, "--tables", str(MAP), "--check", "OP-001")
        assert code == 2 and str(journal) in err
        code, out, err = run_evaluate(
            relay.port, state, "--tables", str(MAP), "--restore", "--allow-control"
        )
    assert code == 0, (out, err)
    assert "put back" in out and not journal.exists()
    assert held(peer) == OUTPUTS
    assert read_only(peer.port) == before
