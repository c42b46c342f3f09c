"""Two cluster proofs on a real nats-server with yadnp3 (opendnp3) outstations, workers and a
front as subprocesses (D212-D214):

- a worker that joins takes its share without interrupting anything it does not take: the
  outstations the first worker keeps are never disconnected and their polls go on, and each
  one moved is connected by one worker at a time (opendnp3's own accept log);
- an evaluation through the front whose worker is killed (-9) mid-check leaves its restore
  journal in the cluster; the worker that takes the outstation puts back what it changed
  (the outstation's own record and a read through the front find the setting as before)
  and says so."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import httpx
import pytest

from gridwire.cluster.holdings import Held
from gridwire.cluster.store import Buckets, Subjects, name_of_key, outstation_key
from gridwire.cluster.worker import Worker
from gridwire.master import Master
from tests.evaluate.stops import relayed
from tests.support.nats import (
    NatsServer,
    front_call,
    gridwire_process,
    start_cluster,
    worker_args,
)
from tests.support.peers import OutstationPeer, yadnp3_der, yadnp3_outstation
from tests.support.waiting import eventually

P = TypeVar("P")
BOUND = 15.0  # D155: a lost worker's outstations are taken again within this
MAP = Path(__file__).parents[1] / "evaluate" / "data" / "yadnp3-service-map.json"
SETTINGS = {
    ("AO", p["index"]): p["value"]
    for p in json.loads(MAP.read_text())["points"]
    if p["kind"] == "AO"
}


def _holders(http: httpx.Client) -> dict[str, list[str]]:
    return {w["worker"]: w["outstations"] for w in front_call(http, "status")["result"]["workers"]}


# --- a worker joins ---------------------------------------------------------------------------


def _accepts(peer: OutstationPeer) -> list[tuple[str, str]]:
    """opendnp3's server channel, in order: each connection accepted, and each end of one
    (a new connection accepted while one is open closes the open one: CloseExisting)."""
    said: list[tuple[str, str]] = []
    for event in list(peer.events):
        if event.get("event") == "log" and "Accepted connection" in event.get("text", ""):
            said.append(("accepted", ""))
        elif event.get("event") == "channel" and event.get("state") in ("OPEN", "CLOSED"):
            said.append(("channel", event["state"]))
    return said


def _one_master_at_a_time(said: list[tuple[str, str]]) -> bool:
    """Each connection accepted while none was open: no second master took the channel
    from a first that had not let go."""
    open_now = False
    for what, state in said:
        if what == "accepted":
            if open_now:
                return False
        else:
            open_now = state == "OPEN"
    return True


def _reads(peer: OutstationPeer) -> int:
    return len(peer.received("request", func="READ"))


def _watch_reads(
    peers: list[OutstationPeer], gaps: dict[int, float], stop: threading.Event
) -> None:
    """The longest time each outstation went without a READ arriving, sampled every 0.1 s."""
    last = {p.port: (time.monotonic(), _reads(p)) for p in peers}
    while not stop.wait(0.1):
        now = time.monotonic()
        for peer in peers:
            count = _reads(peer)
            if count != last[peer.port][1]:
                last[peer.port] = (now, count)
            gaps[peer.port] = max(gaps.get(peer.port, 0.0), now - last[peer.port][0])


def test_a_worker_that_joins_takes_its_share_and_interrupts_nothing_else(
    server: NatsServer,
) -> None:
    count, poll = 6, 0.25
    prefix = ["--cluster-prefix", "join"]
    with ExitStack() as stack:
        cluster = start_cluster(stack, server, ("wa",), *prefix)
        port = cluster.port
        peers = _all_started(stack, [yadnp3_outstation(points=2) for _ in range(count)])
        cluster.wait_ready()
        http = stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60))
        by_name = {f"os{n}": peer for n, peer in enumerate(peers)}
        with ThreadPoolExecutor(count) as pool:  # added together, each answered once connected
            added = pool.map(
                lambda item: front_call(
                    http, "add", name=item[0], host="127.0.0.1", port=item[1].port,
                    event_interval=poll,
                ),
                by_name.items(),
            )  # fmt: skip
        assert all(a["ok"] and a["result"]["connected"] for a in added)
        assert {w: sorted(held) for w, held in _holders(http).items()} == {"wa": sorted(by_name)}
        assert eventually(lambda: all(_reads(p) >= 2 for p in peers), within=10)

        gaps: dict[int, float] = {}
        stop = threading.Event()
        watcher = threading.Thread(target=_watch_reads, args=(peers, gaps, stop), daemon=True)
        watcher.start()
        second = stack.enter_context(gridwire_process(worker_args(server, "--name", "wb", *prefix)))
        second.wait_for("gridwire worker")
        joined = time.monotonic()
        assert eventually(
            lambda: sorted(len(v) for v in _holders(http).values()) == [3, 3],
            within=BOUND,
            every=0.2,
        ), _holders(http)
        took = time.monotonic() - joined
        holders = _holders(http)
        moved = [by_name[name] for name in holders["wb"]]
        kept = [by_name[name] for name in holders["wa"]]
        # The moved ones are polled by the new worker, and answer through the front.
        assert eventually(
            lambda: (
                all(gaps.get(p.port, 9.0) < 4 * poll + 1 for p in moved)
                and all(_scan_ok(http, name) for name in holders["wb"])
            ),
            within=10,
        )
        time.sleep(4 * poll)
        stop.set()
        watcher.join(5)
        said = {peer.port: _accepts(peer) for peer in peers}  # before the workers stop

    print(f"joined: 3 of 6 held by the new worker {took:.1f} s after its lease")
    for peer in kept:  # never disconnected, its polls never stopped
        assert said[peer.port] == [("accepted", ""), ("channel", "OPEN")], said[peer.port]
        assert gaps[peer.port] < 3.0, (peer.port, gaps)  # polled every 0.25 s throughout
    for peer in moved:  # let go by the first worker before the second connected
        accepts = said[peer.port]
        assert accepts.count(("accepted", "")) == 2, accepts
        assert _one_master_at_a_time(accepts), accepts


def _all_started(stack: ExitStack, peers: list[AbstractContextManager[P]]) -> list[P]:
    """Peers started together (each a process of its own), all stopped by ``stack``."""
    with ThreadPoolExecutor(len(peers)) as pool:
        futures = [pool.submit(peer.__enter__) for peer in peers]
    for peer, future in zip(peers, futures, strict=True):
        if future.exception() is None:
            stack.push(peer.__exit__)
    return [future.result() for future in futures]


def _scan_ok(http: httpx.Client, name: str) -> bool:
    return bool(front_call(http, "scan", outstation=name, kind="events")["ok"])


# --- a lost worker's evaluation put back ------------------------------------------------------


def _settings_held(peer: OutstationPeer) -> dict[tuple[str, int], object]:
    """What each setting (AO) holds by opendnp3's own record: the map's value, or the value
    the last control it took (SUCCESS) set."""
    holding = dict(SETTINGS)
    for event in peer.received("operate"):
        if event["status"] == "SUCCESS" and event["kind"] != "crob":
            holding[("AO", event["index"])] = event["raw"]
    return holding


def _read_settings(http: httpx.Client) -> dict[str, object]:
    answer = front_call(http, "read", outstation="der", points={"ao": ["16", "17"]})
    assert answer["ok"], answer
    return {str(o["index"]): o["value"] for o in answer["result"]["objects"]}


def test_a_lost_workers_evaluation_is_put_back_by_the_worker_that_takes_over(
    server: NatsServer,
) -> None:
    prefix = ["--cluster-prefix", "restore", "--tables", str(MAP)]
    with ExitStack() as stack:
        cluster = start_cluster(stack, server, ("ra", "rb"), *prefix)
        workers, port = cluster.workers, cluster.port
        peer = stack.enter_context(yadnp3_der(MAP))
        relay = stack.enter_context(relayed(peer.port, 0.2))  # the check lasts seconds
        cluster.wait_ready()
        http = stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=90))
        added = front_call(
            http, "add", name="der", host="127.0.0.1", port=relay.port, profile="ieee1815.2"
        )
        assert added["ok"], added
        before = _read_settings(http)
        victim = next(w for w, held in _holders(http).items() if held == ["der"])
        heir = next(w for w in workers if w != victim)

        answers: list[dict[str, Any]] = []
        evaluation = threading.Thread(
            target=lambda: answers.append(
                front_call(http, "evaluate", outstation="der", checks=["CONN-001"], settle=2)
            ),
            daemon=True,
        )
        evaluation.start()
        peer.expect(lambda e: e.get("event") == "operate" and e.get("kind") != "crob", timeout=30)
        workers[victim].kill()  # mid-check: a setting written, not yet put back
        changed = _settings_held(peer)
        said = workers[heir].wait_for("put back what a lost worker's evaluation", within=40)
        evaluation.join(60)
        after = _read_settings(http)
        again = front_call(http, "restore_evaluation", outstation="der")

    assert changed != SETTINGS  # the evaluation had changed a setting when its worker died
    assert _settings_held(peer) == SETTINGS, peer.received("operate")  # opendnp3's record
    assert after == before  # read through the front, from the worker that took over
    assert "AO16 10 restored" in said and "left changed" not in said, said
    assert answers and answers[0]["error"]["kind"] == "connection", answers
    # Nothing is left to put back: the journal left the cluster once it was put back.
    assert again["error"]["kind"] == "request" and "no restore journal" in again["error"]["message"]


async def test_a_worker_over_its_share_gives_back_the_last_taken_not_one_under_evaluation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In-process (no NATS is asked): of four held, over a share of two, the two taken last
    are given back, unless one is under an evaluation, which is kept."""
    kv: Any = None
    buckets = Buckets(outstations=kv, workers=kv, leases=kv, journals=kv, lease=2.0)
    master = Master()
    try:
        worker = Worker("wg", master, buckets, Subjects("gw"), capacity=10)
        for token, name in enumerate(["a", "b", "c", "d"], start=1):
            worker.holdings.held[outstation_key(name)] = Held(name, token, 1)
        evaluating: set[str] = set()
        running = SimpleNamespace(running=lambda name: name in evaluating)
        monkeypatch.setattr("gridwire.cluster.worker.evaluations_of", lambda m: running)
        given = [name_of_key(k) for k in worker._to_give_back(2)]
        assert given == ["d", "c"]
        evaluating.add("d")
        given = [name_of_key(k) for k in worker._to_give_back(2)]
        assert given == ["c", "b"]
    finally:
        await master.close()
