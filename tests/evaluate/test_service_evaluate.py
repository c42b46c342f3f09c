"""checks, evaluate, evaluation and cancel_evaluation through the service (HTTP answers checked
against the OpenAPI document the service serves; the line service with its events), against
gridwire's simulated DER, with check functions of the test's own standing in for the
families: the check events before the answer, a second evaluate refused (rule 6), the held
master (another client's read during a writing check is answered only after it), a
read-only service, cancel, and the parameter errors."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gridwire.evaluate.catalogue import listing
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.journal import journal_path
from gridwire.outstation import run_outstation
from gridwire.simulator import SimulatedDer
from tests.evaluate.fake_checks import install
from tests.service.harness import (
    HttpTransport,
    LineTransport,
    Running,
    error,
    ok,
    outstation,
    running_service,
)


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


@contextlib.asynccontextmanager
async def der_service(
    allow_control: bool = True, state_dir: Path | None = None
) -> AsyncIterator[Running]:
    """A service with a simulated DER ``der`` (profile ieee1815.2) and ``plain`` (none)."""
    async with (
        run_outstation(SimulatedDer(), "127.0.0.1", 0, tick_interval=0.5) as server,
        run_outstation(SimulatedDer(), "127.0.0.1", 0, tick_interval=0.5) as other,
        running_service(
            allow_control=allow_control,
            state_dir=state_dir,
            outstations=[
                outstation(server.port, "der", profile="ieee1815.2"),
                outstation(other.port, "plain"),
            ],
        ) as running,
    ):
        await running.master.idle("der")
        yield running


async def test_checks_lists_the_catalogue() -> None:
    async with der_service() as running, HttpTransport(running) as http:
        checks = ok(await http.call("checks"))["checks"]
    assert len(checks) == 46
    assert checks[0] == {
        "id": "PROFILE-001",
        "title": "Device Profile agrees with what is served",
        "set": "device-profile",
        "writes": False,
        "deviates": False,
    }
    assert checks[-1]["id"] == "CONFIRM-003" and checks[-1]["deviates"] is True
    # The catalogue's titles, as --list and the reports give them (D120).
    assert [(c["id"], c["title"]) for c in checks] == [(i.id, i.title) for i in listing()]
    assert {"id": "VV-001", "title": "Volt-VAr (BO29)"}.items() <= checks[33].items()


async def test_check_events_come_before_the_answer_on_the_line_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def reads(ctx: CheckContext) -> None:
        await ctx.read(ctx.served_points(["BI0", "AI537"]))

    install(monkeypatch, {"MON-001": reads, "OP-001": reads})
    async with der_service() as running, LineTransport(running) as line:
        ok(await line.message({"op": "subscribe"}))
        report = ok(await line.call("evaluate", "der", checks=["mon-001", "ALARM-001", "OP-001"]))
        checks = [e["data"] for e in line.events if e["event"] == "check"]
    assert [c["result"]["id"] for c in checks] == ["MON-001", "ALARM-001", "OP-001"]
    assert [c["result"] for c in checks] == report["results"]
    assert all(c["outstation"] == "der" for c in checks)
    assert report["summary"] == {
        "passed": 2,
        "failed": 0,
        "not_applicable": 0,
        "not_run": 1,
        "incomplete": False,
    }
    assert set(report) == {
        "tool", "version", "outstation", "started", "allow_control", "allow_deviations",
        "tables", "settle", "curves", "summary", "results", "device", "ended", "seconds",
        "verdict", "left_changed",
    }  # fmt: skip
    assert report["verdict"] == "pass" and report["device"]["outstation"] == "der"
    assert set(report["results"][0]) == {
        "id", "title", "verdict", "detail", "notes", "requests", "seconds", "frames", "packets",
        "interrupted",
    }  # fmt: skip


async def test_another_clients_read_during_a_writing_check_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    began = asyncio.Event()
    proceed = asyncio.Event()
    ended: list[float] = []

    async def writing(ctx: CheckContext) -> None:
        await ctx.read(ctx.served_points(["BO5"]))
        began.set()
        await proceed.wait()
        await asyncio.sleep(0.3)
        await ctx.read(ctx.served_points(["BI23"]))  # the check's own read still goes
        ended.append(time.monotonic())

    install(monkeypatch, {"CONN-001": writing})
    async with (
        der_service() as running,
        HttpTransport(running) as evaluator,
        HttpTransport(running) as other,
    ):
        evaluation = asyncio.ensure_future(evaluator.call("evaluate", "der", checks=["CONN-001"]))
        await asyncio.wait_for(began.wait(), 20)
        read = asyncio.ensure_future(other.call("read", "der", points={"ai": ["537"]}))
        await asyncio.sleep(0.3)
        assert not read.done()  # held: it waits for the check
        proceed.set()
        answer = ok(await asyncio.wait_for(read, 20))
        answered = time.monotonic()
        report = ok(await asyncio.wait_for(evaluation, 20))
        trace = ok(await other.call("trace", "der"))["frames"]
    assert answer["outcome"] == "complete"
    assert ended and answered >= ended[0]
    result = report["results"][0]
    assert result["verdict"] == "passed" and result["requests"] == 2
    first, last = result["frames"]
    others = [
        f["id"]
        for f in trace
        if f["direction"] == "sent" and f["id"] > last and "READ" in f["summary"]
    ]
    assert others, "the other client's read is sent after the check's last frame"
    inside = [f for f in trace if first <= f["id"] <= last and f["direction"] == "sent"]
    assert len(inside) == 2  # nothing else got in between the check's two reads


async def test_a_second_evaluate_is_refused_and_cancel_stops_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    began = asyncio.Event()
    proceed = asyncio.Event()

    async def waits(ctx: CheckContext) -> None:
        began.set()
        await proceed.wait()

    install(monkeypatch, {"MON-001": waits})
    async with (
        der_service() as running,
        HttpTransport(running) as first,
        LineTransport(running) as second,
    ):
        none = ok(await first.call("evaluation", "der"))
        assert none["state"] == "none" and none["report"] is None
        run = asyncio.ensure_future(first.call("evaluate", "der", checks=["der"]))
        await asyncio.wait_for(began.wait(), 20)
        message = error(await second.call("evaluate", "der"), "request")
        assert "already running" in message and "cancel_evaluation" in message
        progress = ok(await second.call("evaluation", "der"))
        assert (progress["state"], progress["current"], progress["total"]) == (
            "running",
            "MON-001",
            36,
        )
        cancelling = asyncio.ensure_future(second.call("cancel_evaluation", "der"))
        await asyncio.sleep(0.3)
        assert not cancelling.done()  # answered once the run ended (D125)
        proceed.set()
        cancelled = ok(await asyncio.wait_for(cancelling, 20))
        assert cancelled == {"outstation": "der", "cancelled": True, "current": "MON-001"}
        report = ok(await asyncio.wait_for(run, 20))
        last = ok(await second.call("evaluation", "der"))
        assert ok(await second.call("cancel_evaluation", "der"))["cancelled"] is False
    assert report["results"][0]["verdict"] == "passed"
    assert {r["detail"] for r in report["results"][1:]} == {"cancelled"}
    assert last["state"] == "finished" and last["report"] == report


async def test_a_read_only_service_evaluates_what_it_may(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []

    async def check(ctx: CheckContext) -> None:
        ran.append(ctx.spec.id)

    install(monkeypatch, {"MON-001": check, "CONN-001": check})
    async with der_service(allow_control=False) as running, HttpTransport(running) as http:
        report = ok(await http.call("evaluate", "der", checks=["MON-001", "CONN-001"]))
    assert ran == ["MON-001"]
    assert report["allow_control"] is False
    verdicts = {r["id"]: (r["verdict"], r["detail"]) for r in report["results"]}
    assert verdicts["MON-001"] == ("passed", "")
    assert verdicts["CONN-001"][0] == "not_run" and "--allow-control" in verdicts["CONN-001"][1]


async def test_parameters_and_profile_errors_name_what_is_wrong() -> None:
    async with der_service() as running, HttpTransport(running) as http:
        message = error(
            await http.call("evaluate", "der", checks=["MON-001", "BOGUS-9"]), "request"
        )
        assert "'BOGUS-9' is neither a check nor a set" in message
        assert "settle" in error(await http.call("evaluate", "der", settle=0), "request")
        assert "settle" in error(await http.call("evaluate", "der", settle="5"), "request")
        assert "curves" in error(await http.call("evaluate", "der", curves=0), "request")
        assert "curves" in error(await http.call("evaluate", "der", curves=2.5), "request")
        message = error(await http.call("evaluate", "plain"), "request")
        assert "given no profile" in message and '"profile": "ieee1815.2"' in message
        assert "unknown outstation" in error(await http.call("evaluation", "nobody"), "request")
        await http.call("disconnect", "der")
        assert "not connected" in error(await http.call("evaluate", "der"), "connection")


async def test_the_service_keeps_journals_in_its_state_dir(tmp_path: Path) -> None:
    # A journal left in the service's state_dir (--state-dir, "state_dir" in --config) refuses
    # the next evaluate naming that file, and restore_evaluation reads the same folder.
    async with der_service(state_dir=tmp_path) as running, HttpTransport(running) as http:
        left = journal_path(tmp_path, running.master.session("der").settings)
        left.write_text('{"entries": []}')
        refused = error(await http.call("evaluate", "der", checks=["MON-001"]), "request")
        assert str(left) in refused
        restored = ok(await http.call("restore_evaluation", "der"))
        assert restored == {"outstation": "der", "points": []} and not left.exists()
        assert ok(await http.call("evaluate", "der", checks=["MON-001"]))["results"]
