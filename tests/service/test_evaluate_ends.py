"""An evaluation ended through the service mid-check in SERV-001.2 (which stops the DER and
withdraws its permission to start): ``stop``; SIGTERM, SIGINT or SIGHUP of ``gridwire
console`` and ``gridwire serve``; a second SIGTERM (which aborts the check);
``cancel_evaluation``; an HTTP client that leaves; a line client that closes. Real processes:
``gridwire sim --der`` and ``gridwire console|serve --allow-control``. The moment is the
check's first command in the service's log (the DER is being stopped). After each, a second
master of this process, which may not command, finds every binary input (but the three
operating states measured from the power), binary output and analog output as before the
run, read once the service ended; where an operation answered first (cancel_evaluation), or
the run was left to end, the service was killed (SIGKILL) the moment it did, so nothing
could put the DER back after that moment."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from gridwire.master import Master, OutstationSettings
from tests.support.net import free_port
from tests.support.processes import running
from tests.support.simulator import der_sim_with_profile

GRIDWIRE = [sys.executable, "-m", "gridwire"]
CHECKS = ["SERV-001.2", "SERV-001.3"]
SETTLE = 2.5  # gridwire sim ticks every second: a stop or start shows within one tick
MID_CHECK = "command of evaluation check SERV-001.2"
WAIT = 30.0


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


def snapshot(port: int) -> dict[str, object]:
    """Every binary input, binary output and analog output of the DER, read by a master of
    this process that may not command (its connection replaces the service's)."""

    async def read() -> dict[str, object]:
        master = Master()
        try:
            await master.add(OutstationSettings(name="reader", host="127.0.0.1", port=port))
            await master.idle("reader")
            outcome = (await master.scan("reader", "outputs")).outcome
            assert outcome == "complete", outcome
            values = master.values("reader")
        finally:
            await master.close()
        found = {f"{v.type}{v.index}": (v.value, v.flags) for v in values if v.type in KINDS}
        assert {"bo1", "bo2", "bo3", "bo4", "bi15", "ao0"} <= set(found)
        return {key: value for key, value in found.items() if key not in MEASURED}

    return asyncio.run(read())


KINDS = ("bi", "bo", "ao")
MEASURED = ("bi18", "bi19", "bi20")
"""Connected and idle, generating, charging: states the simulated DER derives from the power
it measures, which ramps from 0 again after a stop and start; not a setting or an output."""


@dataclass
class Service:
    proc: subprocess.Popen[str]
    port: int
    log: Path

    def logged(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_logged(self, text: str) -> None:
        deadline = time.monotonic() + WAIT
        while text not in self.logged():
            assert self.proc.poll() is None, f"the service ended: {self.logged()[-2000:]}"
            assert time.monotonic() < deadline, f"never logged {text!r}: {self.logged()[-3000:]}"
            time.sleep(0.02)

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=WAIT)


@contextmanager
def der(tmp_path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    """``gridwire sim --der``: its port, and its outputs and inputs as found."""
    with der_sim_with_profile(tmp_path / "profile.xml") as (der_port, _):
        found = snapshot(der_port)
        assert found["bi14"] == (True, ["ONLINE"])  # started, as gridwire sim starts
        yield der_port, found


@contextmanager
def service(tmp_path: Path, kind: str, der_port: int) -> Iterator[Service]:
    """``gridwire console`` (no token) or ``serve`` with --allow-control over the simulated
    DER on ``der_port``, named ``der``."""
    port = free_port()
    log = tmp_path / f"{kind}.log"
    args = [*GRIDWIRE, kind, "--bind", f"127.0.0.1:{port}", "--allow-control", "--profile"]
    args += ["--outstation", f"der=127.0.0.1:{der_port}", "--log-file", str(log)]
    if kind == "console":
        args.append("--no-token")
    with running(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if re.search(r"(listening on |on http://)127\.0\.0\.1", line):
                break
        else:
            raise AssertionError(f"{kind} did not start: {proc.stderr and proc.stderr.read()}")
        yield Service(proc, port, log)


def http(port: int, op: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = httpx.post(f"http://127.0.0.1:{port}/api/{op}", json=params or {}, timeout=WAIT)
    body: dict[str, Any] = answer.json()
    return body


def line(port: int, message: dict[str, Any]) -> dict[str, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        sock.sendall(orjson.dumps(message) + b"\n")
        decoded: dict[str, Any] = orjson.loads(sock.makefile("rb").readline())
    return decoded


EVALUATE = {"outstation": "der", "checks": CHECKS, "settle": SETTLE}


def in_thread(work: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """``work`` in a thread: the thread, and a list that receives its result or exception."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(work())
        except Exception as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def evaluating(svc: Service, kind: str) -> tuple[threading.Thread, list[object]]:
    """An evaluate under way (by HTTP or a line), once SERV-001.2 has sent its first command."""
    if kind == "console":
        started = in_thread(lambda: http(svc.port, "evaluate", EVALUATE))
    else:
        started = in_thread(lambda: line(svc.port, {"op": "evaluate", "params": EVALUATE}))
    svc.wait_logged(MID_CHECK)
    return started


def assert_clean_exit(svc: Service) -> None:
    assert svc.proc.wait(timeout=WAIT) == 0
    assert svc.proc.stderr is not None
    err = svc.proc.stderr.read()
    assert "Traceback" not in err and "Traceback" not in svc.logged(), err + svc.logged()


@pytest.mark.parametrize(
    ("kind", "signum"),
    [
        ("console", signal.SIGTERM),
        ("serve", signal.SIGTERM),
        ("console", signal.SIGINT),
        ("serve", signal.SIGHUP),
    ],
)
def test_a_signal_mid_check_exits_after_the_restores(
    tmp_path: Path, kind: str, signum: signal.Signals
) -> None:
    with der(tmp_path) as (der_port, before), service(tmp_path, kind, der_port) as svc:
        thread, answered = evaluating(svc, kind)
        svc.proc.send_signal(signum)
        assert_clean_exit(svc)
        thread.join(WAIT)
        after = snapshot(der_port)
    assert after == before
    report = answered[0]
    assert isinstance(report, dict) and report["ok"], report
    results = {r["id"]: r for r in report["result"]["results"]}
    assert results["SERV-001.2"]["verdict"] == "passed", results
    assert results["SERV-001.3"] == {**results["SERV-001.3"], "verdict": "not_run"}


def test_stop_mid_check_exits_after_the_restores(tmp_path: Path) -> None:
    with der(tmp_path) as (der_port, before), service(tmp_path, "serve", der_port) as svc:
        thread, answered = evaluating(svc, "serve")
        assert line(svc.port, {"op": "stop"})["result"] == {"stopping": True}
        assert_clean_exit(svc)
        thread.join(WAIT)
        after = snapshot(der_port)
    assert after == before
    report = answered[0]
    assert isinstance(report, dict) and report["ok"], report
    assert [r["verdict"] for r in report["result"]["results"]] == ["passed", "not_run"]


def test_cancel_evaluation_answers_after_the_restores(tmp_path: Path) -> None:
    with der(tmp_path) as (der_port, before), service(tmp_path, "console", der_port) as svc:
        thread, _ = evaluating(svc, "console")
        cancelled = http(svc.port, "cancel_evaluation", {"outstation": "der"})
        svc.kill()  # the moment the answer came: nothing can put the DER back after it
        after = snapshot(der_port)
        thread.join(WAIT)
    assert cancelled["result"] == {"outstation": "der", "cancelled": True, "current": "SERV-001.2"}
    assert after == before


def test_an_http_client_that_leaves_cancels_its_run_and_restores(tmp_path: Path) -> None:
    with der(tmp_path) as (der_port, before), service(tmp_path, "console", der_port) as svc:
        with socket.create_connection(("127.0.0.1", svc.port), timeout=WAIT) as sock:
            body = orjson.dumps(EVALUATE)
            sock.sendall(
                b"POST /api/evaluate HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                % (svc.port, len(body), body)
            )
            svc.wait_logged(MID_CHECK)
        svc.wait_logged("evaluate on der: the caller left; its evaluation ended")
        status = wait_finished(svc)
        svc.kill()
        after = snapshot(der_port)
    assert after == before
    assert [(r["id"], r["verdict"]) for r in status["results"]] == [
        ("SERV-001.2", "passed"),
        ("SERV-001.3", "not_run"),
    ]
    assert status["results"][1]["detail"] == "cancelled"


def test_a_line_client_that_closes_leaves_its_run_to_end_restored(tmp_path: Path) -> None:
    with der(tmp_path) as (der_port, before), service(tmp_path, "serve", der_port) as svc:
        with socket.create_connection(("127.0.0.1", svc.port), timeout=WAIT) as sock:
            sock.sendall(orjson.dumps({"op": "evaluate", "params": EVALUATE}) + b"\n")
            svc.wait_logged(MID_CHECK)
        status = wait_finished(svc)
        svc.kill()
        after = snapshot(der_port)
    assert after == before
    assert [(r["id"], r["verdict"]) for r in status["results"]] == [
        ("SERV-001.2", "passed"),
        ("SERV-001.3", "passed"),
    ]


def wait_finished(svc: Service) -> dict[str, Any]:
    """The last report, once the run against ``der`` ended (asked by the service's API)."""
    deadline = time.monotonic() + WAIT
    while True:
        if "console" in svc.log.name:
            status = http(svc.port, "evaluation", {"outstation": "der"})["result"]
        else:
            status = line(svc.port, {"op": "evaluation", "outstation": "der"})["result"]
        if status["state"] == "finished":
            result: dict[str, Any] = status
            return result
        assert time.monotonic() < deadline, status
        time.sleep(0.1)


def test_a_second_sigterm_stops_the_check_at_once_and_still_restores(tmp_path: Path) -> None:
    with der(tmp_path) as (der_port, before), service(tmp_path, "console", der_port) as svc:
        thread, answered = evaluating(svc, "console")
        svc.proc.send_signal(signal.SIGTERM)
        svc.wait_logged("ends after the check under way")
        # In its wait, the DER stopped and its permission to start withdrawn (the run
        # state's restore reads the state: aborted before the DER moved, it would see
        # nothing to put back, a defect of the check's restore, not of the service).
        svc.wait_logged('[["bo",3,false,null]]')
        svc.proc.send_signal(signal.SIGTERM)
        assert_clean_exit(svc)
        thread.join(WAIT)
        after = snapshot(der_port)
        logged = svc.logged()
    assert after == before
    assert "evaluation of der aborted; its restores run" in logged
    assert "did not end" not in logged
    answer = answered[0]
    assert isinstance(answer, dict), answer
    if answer["ok"]:  # Evaluations.abort: a report, the check stopped not_run
        assert answer["result"]["results"][0]["verdict"] == "not_run", answer
    else:  # the service's stand-in abort (the run's task cancelled): an error saying so
        assert "aborted" in answer["error"]["message"], answer


def test_restore_evaluation_writes_back_the_journal_a_killed_service_left(
    tmp_path: Path,
) -> None:
    with der(tmp_path) as (der_port, before):
        with service(tmp_path, "serve", der_port) as svc:
            thread, _ = evaluating(svc, "serve")
            svc.wait_logged('[["bo",3,false,null]]')
            svc.kill()  # mid-check: the DER stopped, its permission to start withdrawn
        thread.join(WAIT)
        assert snapshot(der_port) != before
        with service(tmp_path, "serve", der_port) as svc:
            refused = line(svc.port, {"op": "evaluate", "params": EVALUATE})
            restored = line(svc.port, {"op": "restore_evaluation", "outstation": "der"})
            again = line(svc.port, {"op": "restore_evaluation", "outstation": "der"})
            svc.kill()
        after = snapshot(der_port)
    assert refused["error"]["kind"] == "request" and "journal" in refused["error"]["message"]
    points = restored["result"]["points"]
    assert points and all(p["restored"] for p in points), restored
    assert {p["point"] for p in points} >= {"BO3", "BO2"}, points
    assert again["error"]["kind"] == "request" and "no restore journal" in again["error"]["message"]
    assert after == before
