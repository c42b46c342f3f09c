"""A NATS cluster of three routed nats-servers (JetStream buckets kept in three copies):
one node killed, the front and the worker carry on: polls and controls through the front
still work, the worker keeps its lease, and yadnp3 (opendnp3) receives each control once.
The node leading the outstations bucket stalled while an outstation is added: the add is
asked again across the election and answers once (D240)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import nats

from tests.support.nats import (
    GridwireProcess,
    NatsServer,
    front_call,
    front_port,
    gridwire_process,
    nats_cluster,
)
from tests.support.peers import yadnp3_outstation
from tests.support.waiting import eventually


@contextmanager
def _worker_and_front(
    servers: list[NatsServer],
) -> Iterator[tuple[GridwireProcess, GridwireProcess, httpx.Client]]:
    """Worker w1 and a front, both allowed control, on the NATS cluster (lease 2 s, buckets
    in three copies), started; and an HTTP client of the front."""
    urls = ",".join(s.url for s in servers)
    common = ["--cluster", urls, "--cluster-lease", "2", "--cluster-replicas", "3"]
    port = front_port()
    front_cmd = ["console", *common, "--no-token", "--bind", f"127.0.0.1:{port}"]
    with (
        gridwire_process(["worker", *common, "--allow-control", "--name", "w1"]) as worker,
        gridwire_process([*front_cmd, "--allow-control"]) as front,
        httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http,
    ):
        worker.wait_for("gridwire worker", within=40)
        front.wait_for("gridwire console", within=40)
        yield worker, front, http


def test_one_nats_node_killed_front_and_worker_carry_on() -> None:
    with (
        nats_cluster(3) as servers,
        yadnp3_outstation(points=2) as peer,
        _worker_and_front(servers) as (worker, front, http),
    ):
        added = front_call(http, "add", name="os", host="127.0.0.1", port=peer.port)
        assert added["ok"], (added, worker.lines, front.lines)
        assert front_call(http, "operate", outstation="os", points={"ao": {"0": 1.0}})["ok"]

        # The node the worker is connected to goes.
        node = next(s for s in servers if any("w1" in name for name in s.clients()))
        node.proc.kill()
        node.proc.wait(timeout=10)
        killed = time.monotonic()
        assert eventually(
            lambda: front_call(http, "scan", outstation="os", kind="integrity")["ok"],
            within=20,
            every=0.3,
        )
        # Past a few lease times: the worker still holds the outstation (renewals went
        # on through the other nodes) and status gathers it.
        time.sleep(max(0.0, 2 * 2 - (time.monotonic() - killed)))
        answer = front_call(http, "status")
        assert answer["ok"], answer
        status = answer["result"]
        assert status["workers"][0]["outstations"] == ["os"]
        assert status["not_answered"] == []
        assert front_call(http, "operate", outstation="os", points={"ao": {"0": 2.0}})["ok"]
        peer.expect("operate", value=2.0)
        assert [e["value"] for e in peer.received("operate")] == [1.0, 2.0]
        assert "taken by" not in "\n".join(worker.lines)


def _held(http: httpx.Client) -> list[str]:
    answer = front_call(http, "status")
    workers = answer["result"]["workers"] if answer["ok"] else []
    return [name for worker in workers for name in worker["outstations"]]


async def _leader(url: str, stream: str) -> str:
    nc = await nats.connect(url)
    try:
        info = await nc.jetstream().stream_info(stream)
    finally:
        await nc.close()
    assert info.cluster is not None and info.cluster.leader is not None
    return info.cluster.leader


def test_add_while_the_outstations_leader_stalls_is_answered_once() -> None:
    with (
        nats_cluster(3) as servers,
        yadnp3_outstation(points=2) as peer,
        _worker_and_front(servers) as (worker, _, http),
    ):
        leader = asyncio.run(_leader(servers[0].url, "KV_gridwire-outstations"))
        node = servers[int(leader.removeprefix("gw"))]
        # Long enough for the other two to elect a leader: a request sent to the
        # stalled one is never answered (before D240: "the cluster could not be asked
        # (nats: timeout): nothing was sent" after 10 s, though it may have been stored).
        os.kill(node.proc.pid, signal.SIGSTOP)
        resume = threading.Timer(6.0, os.kill, (node.proc.pid, signal.SIGCONT))
        resume.start()
        try:
            added = front_call(http, "add", name="os", host="127.0.0.1", port=peer.port)
        finally:
            resume.join()
        # Stored: taken and connected, or (JetStream still electing after the node came
        # back, the worker's 2 s lease lapsing meanwhile) said to be stored and not yet
        # taken.
        message = (added.get("error") or {}).get("message", "")
        assert added["ok"] or "was added to the cluster" in message, (added, worker.lines)
        again = front_call(http, "add", name="os", host="127.0.0.1", port=peer.port)
        assert "already added" in again["error"]["message"], again
        assert eventually(lambda: _held(http) == ["os"], within=30, every=0.5)
        assert front_call(http, "operate", outstation="os", points={"ao": {"0": 3.0}})["ok"]
        peer.expect("operate", value=3.0)
        assert [e["value"] for e in peer.received("operate")] == [3.0]
