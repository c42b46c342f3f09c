"""A cluster ``status`` pages as one process does (D149, D220): a front over two workers
(2 and 3 outstations) on a real nats-server whose ``max_payload`` is far below one worker's
whole status, so the front must page each worker's slice (and a worker trim a slice to what
fits) for any answer to come. The outstations are never reached (nothing listens on their
ports): a status entry is there from ``add`` on, connected or not."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import orjson
import pytest

from tests.support.nats import front_args, front_port, gridwire_process, nats_server, worker_args
from tests.support.net import free_port
from tests.support.waiting import eventually

MAX_PAYLOAD = 1400  # octets: one entry (about 550) fits with its envelope, three do not
COUNTS = {"a": 2, "b": 3}  # workers by id, each at its capacity


@pytest.fixture(scope="module")
def front() -> Iterator[httpx.Client]:
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        config = folder / "nats.conf"
        config.write_text(f"max_payload: {MAX_PAYLOAD}\n")
        server = stack.enter_context(nats_server(extra=["-c", str(config)]))
        workers = [
            stack.enter_context(
                gridwire_process(worker_args(server, "--name", w, "--capacity", str(n)))
            )
            for w, n in COUNTS.items()
        ]
        port = front_port()
        process = stack.enter_context(gridwire_process(front_args(server, port)))
        for worker in workers:
            worker.wait_for("gridwire worker")
        process.wait_for("gridwire console")
        http = stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60))
        for n in range(sum(COUNTS.values())):
            added = http.post(
                "/api/add", json={"name": f"os{n}", "host": "127.0.0.1", "port": free_port()}
            )
            # Added, and its first connection refused (it is kept, and retried).
            assert added.json().get("error", {}).get("kind", "connection") == "connection", (
                added.text
            )
        yield http


def _status(http: httpx.Client, **params: int) -> dict[str, object]:
    answer = http.post("/api/status", json=params).json()
    assert answer["ok"], answer
    result: dict[str, object] = answer["result"]
    assert result["not_answered"] == [], result
    return result


def _names(status: dict[str, object]) -> list[str]:
    return [str(o["name"]) for o in status["outstations"]]  # type: ignore[attr-defined,index]


def test_the_whole_list_comes_when_one_worker_s_is_over_max_payload(front: httpx.Client) -> None:
    assert eventually(
        lambda: {w["worker"]: w["held"] for w in _status(front)["workers"]} == COUNTS,  # type: ignore[attr-defined,index]
        within=15,
        every=0.3,
    )
    whole = _status(front, limit=100_000)
    entries = whole["outstations"]
    assert isinstance(entries, list)
    assert sorted(_names(whole)) == [f"os{n}" for n in range(5)]
    assert whole["total"] == 5 and whole["next"] is None and whole["offset"] == 0
    assert sum(whole["summary"].values()) == 5  # type: ignore[attr-defined]
    # Worker a's entries first, then b's (laid out by worker id)...
    by_worker = {w["worker"]: w["outstations"] for w in whole["workers"]}  # type: ignore[attr-defined,index]
    assert _names(whole) == by_worker["a"] + by_worker["b"]
    # ...and b's three entries alone are over the server's max_payload: its whole status
    # could never have been one message.
    assert len(orjson.dumps(entries[2:])) > MAX_PAYLOAD


def test_pages_across_the_workers_are_one_process_s_pages(front: httpx.Client) -> None:
    whole = _status(front, limit=100_000)
    names = _names(whole)
    for limit in (1, 2, 3, 5, 6):
        for offset in range(0, 7):
            page = _status(front, offset=offset, limit=limit)
            assert _names(page) == names[offset : offset + limit], (offset, limit)
            assert page["total"] == 5 and page["offset"] == offset
            assert page["next"] == (offset + limit if offset + limit < 5 else None)
            # Every outstation counted (by state: they retry, so the states move).
            assert sum(page["summary"].values()) == 5  # type: ignore[attr-defined]
    # Limit 3 from 1 spans the boundary between a (2 entries) and b (3 entries).
    across = _status(front, offset=1, limit=3)
    held = {w["worker"]: w["outstations"] for w in across["workers"]}  # type: ignore[attr-defined,index]
    assert [len(held["a"]), len(held["b"])] == [1, 2]
