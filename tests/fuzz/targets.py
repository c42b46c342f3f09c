"""The services under fuzz, started as a user starts them: ``gridwire console --demo``,
``gridwire serve`` against ``gridwire sim --der``, and ``gridwire sep2`` against the head-end
double, each a subprocess on free loopback ports, logging to a file, stopped by its pid.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson

from tests.sep2.headend import HeadEndDouble
from tests.sep2.pki import Pki
from tests.support.net import free_port, wait_listening
from tests.support.processes import running
from tests.support.waiting import eventually

GRIDWIRE = [sys.executable, "-m", "gridwire"]
STARTED_WITHIN = 60.0  # seconds, on a loaded machine


@dataclass
class Target:
    proc: subprocess.Popen[str]
    port: int
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None


def _until(condition: object, what: str, proc: subprocess.Popen[str], log: Path) -> None:
    assert callable(condition)

    def ready() -> bool:
        if proc.poll() is not None:
            return True  # it ended: no use waiting
        try:
            return bool(condition())
        except (httpx.HTTPError, OSError, ValueError, KeyError):
            return False

    if not eventually(ready, STARTED_WITHIN, every=0.1) or proc.poll() is not None:
        text = log.read_text(errors="replace") if log.exists() else ""
        raise AssertionError(f"{what} did not start: {text[-3000:]}")


def _line_status(port: int) -> dict[str, object]:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b'{"op": "status"}\n')
        answer: dict[str, object] = orjson.loads(sock.makefile("rb").readline())
    return answer


def _connected(status: dict[str, object]) -> bool:
    result = status["result"]
    assert isinstance(result, dict)
    return bool(result["outstations"]) and all(o["connected"] for o in result["outstations"])


@contextmanager
def console(directory: Path) -> Iterator[Target]:
    """``gridwire console --demo --allow-control --no-token``: its simulated DER in the same
    process, as a user runs the demo."""
    port = free_port()
    log = directory / "console.log"
    out = (directory / "console.out").open("w")
    cmd = [*GRIDWIRE, "console", "--demo", "--allow-control", "--no-token",
           "--bind", f"127.0.0.1:{port}", "--log-file", str(log)]  # fmt: skip
    with out, running(cmd, stdout=out, stderr=subprocess.STDOUT) as proc:

        def ready() -> bool:
            answer = httpx.post(f"http://127.0.0.1:{port}/api/status", json={}, timeout=5)
            return _connected(answer.json())

        _until(ready, "gridwire console", proc, log)
        yield Target(proc, port, log)


@contextmanager
def serve(directory: Path) -> Iterator[Target]:
    """``gridwire serve --allow-control --profile`` with ``gridwire sim --der`` as its
    outstation ``der``."""
    sim_port, port = free_port(), free_port()
    log = directory / "serve.log"
    with ExitStack() as stack:
        sim_out = stack.enter_context((directory / "sim.log").open("w"))
        sim = [*GRIDWIRE, "sim", "--der", "--bind", f"127.0.0.1:{sim_port}"]
        stack.enter_context(running(sim, stdout=sim_out, stderr=subprocess.STDOUT))
        wait_listening(sim_port, timeout=STARTED_WITHIN)
        out = stack.enter_context((directory / "serve.out").open("w"))
        cmd = [*GRIDWIRE, "serve", "--allow-control", "--profile",
               "--outstation", f"der=127.0.0.1:{sim_port}", "--bind", f"127.0.0.1:{port}",
               "--log-file", str(log)]  # fmt: skip
        proc = stack.enter_context(running(cmd, stdout=out, stderr=subprocess.STDOUT))
        _until(lambda: _connected(_line_status(port)), "gridwire serve", proc, log)
        yield Target(proc, port, log)


@contextmanager
def sep2(directory: Path, headend: HeadEndDouble, pki: Pki) -> Iterator[Target]:
    """``gridwire sep2`` observing the head-end double, its API on a free port, once it has
    observed the head-end's time (so ``/api/v1/time`` answers 200 from then on)."""
    port = free_port()
    log = directory / "sep2.log"
    cmd = [*GRIDWIRE, "sep2", "--server", headend.url, "--tls-ca", str(pki.ca),
           "--tls-certificate", str(pki.device_certificate), "--tls-key", str(pki.device_key),
           "--api-bind", f"127.0.0.1:{port}"]  # fmt: skip
    with log.open("w") as out, running(cmd, stdout=out, stderr=subprocess.STDOUT) as proc:

        def ready() -> bool:
            answer = httpx.get(f"http://127.0.0.1:{port}/api/v1/time", timeout=5)
            return answer.status_code == 200

        _until(ready, "gridwire sep2", proc, log)
        yield Target(proc, port, log)
