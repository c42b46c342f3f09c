"""A front over two workers on a real nats-server (token auth), with yadnp3 (opendnp3)
outstations: ``add`` through the front, polls and controls through it, events merged from
the workers, ``status`` gathering every worker, and control refused by a worker started
without --allow-control even though the front allows it. Controls are counted at the
yadnp3 side."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import orjson
import pytest

from tests.support.nats import (
    GridwireProcess,
    front_args,
    front_port,
    gridwire_process,
    nats_server,
    worker_args,
)
from tests.support.peers import OutstationPeer, yadnp3_outstation
from tests.support.waiting import eventually


class Cluster:
    def __init__(self, port: int, workers: dict[str, GridwireProcess]) -> None:
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
        self.workers = workers

    def call(self, op: str, **params: object) -> dict[str, object]:
        data: dict[str, object] = self.http.post(f"/api/{op}", json=params).json()
        return data


@pytest.fixture(scope="module")
def outstations() -> Iterator[list[OutstationPeer]]:
    with yadnp3_outstation(points=4) as one, yadnp3_outstation(points=4) as two:
        yield [one, two]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with ExitStack() as stack:
        server = stack.enter_context(nats_server(token="t0ken-for-tests"))
        port = front_port()
        control = stack.enter_context(
            gridwire_process(worker_args(server, "--name", "control", "--capacity", "1"))
        )
        readonly = stack.enter_context(
            gridwire_process(
                worker_args(server, "--name", "readonly", "--capacity", "1", control=False)
            )
        )
        front = stack.enter_context(gridwire_process(front_args(server, port)))
        for process in (control, readonly):
            process.wait_for("gridwire worker")
        front.wait_for("gridwire console (control allowed)")
        yield Cluster(port, {"control": control, "readonly": readonly})


def _events(cluster: Cluster, seen: list[dict[str, object]], stop: threading.Event) -> None:
    with cluster.http.stream("GET", "/events", timeout=None) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                seen.append(orjson.loads(line[6:]))
            if stop.is_set():
                return


def test_add_poll_control_and_events_through_the_front(
    cluster: Cluster, outstations: list[OutstationPeer]
) -> None:
    for n, peer in enumerate(outstations):
        added = cluster.call("add", name=f"os{n}", host="127.0.0.1", port=peer.port)
        assert added["ok"], added
        assert added["result"]["connected"] is True  # type: ignore[index]
    status = cluster.call("status")["result"]
    assert isinstance(status, dict)
    held = {w["worker"]: w["held"] for w in status["workers"]}
    assert held == {"control": 1, "readonly": 1}  # capacity 1 each: one outstation each
    assert {o["name"] for o in status["outstations"]} == {"os0", "os1"}
    assert status["not_answered"] == [] and status["unassigned"] == []

    seen: list[dict[str, object]] = []
    stop = threading.Event()
    reader = threading.Thread(target=_events, args=(cluster, seen, stop), daemon=True)
    reader.start()
    for n in range(2):
        scan = cluster.call("scan", outstation=f"os{n}", kind="integrity")
        assert scan["ok"] and scan["result"]["outcome"] == "complete"  # type: ignore[index]
    # Each worker's exchanges reach the one /events stream of the front (the workers start
    # forwarding once the front says it has a listener: scan again until they show).
    assert eventually(
        lambda: (
            {e.get("outstation") for e in seen if "outstation" in e} >= {"os0", "os1"}
            or not all(
                cluster.call("scan", outstation=f"os{n}", kind="events")["ok"] for n in range(2)
            )
        ),
        within=15,
        every=0.3,
    )
    stop.set()
    assert {e.get("outstation") for e in seen if "outstation" in e} >= {"os0", "os1"}, seen[:5]

    # Control: allowed by the front; carried out by the worker with --allow-control, refused
    # (nothing sent) by the one without.
    by_worker = {o["name"]: o for o in status["outstations"]}
    assert len(by_worker) == 2
    answers = {
        n: cluster.call("operate", outstation=f"os{n}", points={"ao": {"1": 40.0 + n}})
        for n in range(2)
    }
    kinds = sorted(str(a["ok"]) if a["ok"] else a["error"]["kind"] for a in answers.values())  # type: ignore[index]
    assert kinds == ["True", "not_allowed"]
    for n, answer in answers.items():
        received = outstations[n].received("operate")
        if answer["ok"]:
            outstations[n].expect("operate", value=40.0 + n)
            assert [e["value"] for e in outstations[n].received("operate")] == [40.0 + n]
        else:
            assert received == []
            assert "--allow-control" in answer["error"]["message"]  # type: ignore[index]

    removed = cluster.call("remove", outstation="os0")
    assert removed["ok"], removed
    after = cluster.call("status")["result"]
    assert [o["name"] for o in after["outstations"]] == ["os1"]  # type: ignore[index]
    assert cluster.call("scan", outstation="os0", kind="events")["error"]["kind"] == "request"  # type: ignore[index]
