"""Real ``nats-server`` processes (Debian's, with JetStream) and gridwire workers and fronts
as subprocesses, for the cluster's tests and bench. Each is stopped by its pid.

    with nats_server(token="s3cret") as server, gridwire_process(["worker", ...]) as worker:
        worker.wait_for("gridwire worker")
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support.net import free_port
from tests.support.processes import running, stop

NATS_SERVER = shutil.which("nats-server") or "/usr/sbin/nats-server"
GRIDWIRE = [sys.executable, "-m", "gridwire"]


@dataclass
class NatsServer:
    port: int
    proc: subprocess.Popen[str]
    token: str | None = None
    monitor: int | None = None

    def clients(self) -> list[str]:
        """The names of the clients connected to this server (its monitoring port)."""
        import httpx

        assert self.monitor is not None
        connz = httpx.get(f"http://127.0.0.1:{self.monitor}/connz", timeout=5).json()
        return [c.get("name", "") for c in connz.get("connections") or []]

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The server stopped (SIGSTOP) while inside: it reads nothing and answers nothing
        until resumed (SIGCONT) on leaving."""
        self.proc.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.proc.send_signal(signal.SIGCONT)


def _listening(port: int, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nats-server did not listen on {port} within {within} s")


@contextmanager
def nats_server(
    *,
    token: str | None = None,
    extra: Sequence[str] = (),
    port: int | None = None,
    jetstream: bool = True,
) -> Iterator[NatsServer]:
    """One nats-server with JetStream (unless told not) on loopback, its store in a temporary
    directory. Ports picked here are tried again when another process took one meanwhile
    (tests run in parallel): the server is known to be this one by the ports file it writes
    once it listens, named by its pid."""
    store = tempfile.mkdtemp(prefix="gridwire-nats-")
    js = ["-js", "-sd", store] if jetstream else []
    try:
        for _ in range(3 if port is None else 1):
            client = free_port() if port is None else port
            monitor = free_port()
            cmd = [NATS_SERVER, *js, "-a", "127.0.0.1", "-p", str(client), *extra]
            cmd += ["-m", str(monitor), "--ports_file_dir", store]
            if token is not None:
                cmd += ["--auth", token]
            with running(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
                if not _started(proc, store):
                    continue  # a port was taken: this server exited
                _listening(client)
                yield NatsServer(client, proc, token, monitor)
                return
        raise AssertionError(f"nats-server could not listen: {' '.join(cmd)}")
    finally:
        shutil.rmtree(store, ignore_errors=True)


def _started(proc: subprocess.Popen[str], store: str, within: float = 10.0) -> bool:
    """Whether this nats-server came to listen (it wrote its ports file) rather than exit."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if list(Path(store).glob(f"*_{proc.pid}.ports")):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    raise AssertionError(f"nats-server (pid {proc.pid}) did not start within {within} s")


@contextmanager
def nats_cluster(size: int = 3) -> Iterator[list[NatsServer]]:
    """``size`` nats-servers routed into one NATS cluster (JetStream clustered)."""
    routes = [free_port() for _ in range(size)]
    joined = ",".join(f"nats://127.0.0.1:{p}" for p in routes)
    with ExitStack() as stack:
        servers = []
        for n, route in enumerate(routes):
            extra = [
                "-n",
                f"gw{n}",
                "--cluster_name",
                "gridwire",
                "--cluster",
                f"nats://127.0.0.1:{route}",
                "--routes",
                joined,
            ]
            servers.append(stack.enter_context(nats_server(extra=extra)))
        yield servers


@dataclass
class GridwireProcess:
    """A gridwire subprocess whose output lines are collected."""

    proc: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()

    def wait_for(self, text: str, within: float = 20.0) -> str:
        deadline = time.monotonic() + within
        with self._cond:
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(
                        f"gridwire did not print {text!r}; it printed:\n" + "\n".join(self.lines)
                    )
                self._cond.wait(min(left, 0.2))

    def signal(self, signum: signal.Signals) -> None:
        os.kill(self.proc.pid, signum)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        stop(self.proc)


@contextmanager
def gridwire_process(args: Sequence[str]) -> Iterator[GridwireProcess]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with running(
        [*GRIDWIRE, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    ) as proc:
        process = GridwireProcess(proc)
        threading.Thread(target=process._read, daemon=True).start()
        yield process


def worker_args(
    server: NatsServer, *more: str, lease: float = 2.0, control: bool = True
) -> list[str]:
    args = ["worker", "--cluster", server.url, "--cluster-lease", f"{lease:g}"]
    if server.token is not None:
        args += ["--cluster-token", server.token]
    return [*args, *(["--allow-control"] if control else []), *more]


def front_args(
    server: NatsServer, port: int, *more: str, lease: float = 2.0, control: bool = True
) -> list[str]:
    args = ["console", "--cluster", server.url, "--cluster-lease", f"{lease:g}"]
    if server.token is not None:
        args += ["--cluster-token", server.token]
    args += ["--no-token", "--bind", f"127.0.0.1:{port}"]
    return [*args, *(["--allow-control"] if control else []), *more]


def front_port() -> int:
    return free_port()


@dataclass
class Cluster:
    """Workers and a front on one NATS server, started (:func:`start_cluster`)."""

    workers: dict[str, GridwireProcess]
    front: GridwireProcess
    port: int

    def wait_ready(self) -> None:
        """Until every worker and the front said they run."""
        for worker in self.workers.values():
            worker.wait_for("gridwire worker")
        self.front.wait_for("gridwire console")


def start_cluster(
    stack: ExitStack, server: NatsServer, names: Sequence[str], *more: str
) -> Cluster:
    """Workers named ``names`` and a front on ``server``, each given ``more``, stopped with
    ``stack``; not waited for (start peers meanwhile, then :meth:`Cluster.wait_ready`)."""
    workers = {
        name: stack.enter_context(gridwire_process(worker_args(server, "--name", name, *more)))
        for name in names
    }
    port = front_port()
    front = stack.enter_context(gridwire_process(front_args(server, port, *more)))
    return Cluster(workers, front, port)


def front_call(http: httpx.Client, op: str, **params: object) -> dict[str, Any]:
    """An operation through a front's HTTP API (POST /api/<op>): its envelope."""
    data: dict[str, Any] = http.post(f"/api/{op}", json=params).json()
    return data
