"""A NATS cluster of three routed nats-servers (JetStream buckets kept in three copies):
one node killed, the front and the worker carry on: polls and controls through the front
still work, the worker keeps its lease, and yadnp3 (opendnp3) receives each control once."""

from __future__ import annotations

import time

import httpx

from tests.support.nats import front_call, front_port, gridwire_process, nats_cluster
from tests.support.peers import yadnp3_outstation
from tests.support.waiting import eventually


def test_one_nats_node_killed_front_and_worker_carry_on() -> None:
    with nats_cluster(3) as servers, yadnp3_outstation(points=2) as peer:
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
            assert front_call(http, "add", name="os", host="127.0.0.1", port=peer.port)["ok"]
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
