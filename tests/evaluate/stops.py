"""What the tests of an evaluation's ending share: ``gridwire evaluate`` as a subprocess
watched for its first command of a check, an independent look at the outstation (a second
master of the test's own), and a TCP relay the test can cut (the outstation "gone")."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from gridwire.der.demo import demo_map
from gridwire.der.functions import CURVE_FIRST_X
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind
from gridwire.derops.curve import CurveReading, der_curve
from gridwire.derops.der_master import DerMaster
from gridwire.derops.read import read_points
from gridwire.master import OutstationSettings
from gridwire.master.controls import Control
from tests.support.net import free_port
from tests.support.processes import stop

LOOK = "look"


# --- gridwire evaluate as a subprocess ------------------------------------------------------


@dataclasses.dataclass
class Evaluating:
    """A ``gridwire evaluate`` subprocess and the lines of its standard error so far."""

    proc: subprocess.Popen[str]
    lines: list[str] = dataclasses.field(default_factory=list)
    commanded: threading.Event = dataclasses.field(default_factory=threading.Event)
    reader: threading.Thread | None = None

    def wait_for_command(self, timeout: float = 30.0) -> None:
        """Until the run sends its first command of a check (logged at INFO)."""
        assert self.commanded.wait(timeout), "".join(self.lines)

    def wait_for_line(self, text: str, timeout: float = 30.0) -> None:
        """Until a line of its standard error holds ``text``."""
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert time.monotonic() < deadline and self.proc.poll() is None, "".join(self.lines)
            time.sleep(0.05)

    def finish(self, timeout: float = 60.0) -> tuple[int, str, str]:
        """Its exit status, standard output and standard error once it ended."""
        try:
            out = self.proc.stdout.read() if self.proc.stdout else ""
            code = self.proc.wait(timeout)
        finally:
            stop(self.proc)
        if self.reader is not None:
            self.reader.join(5)
        return code, out, "".join(self.lines)


def evaluate_args(port: int, state_dir: Path, *more: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gridwire",
        "evaluate",
        "der",
        "--outstation",
        f"der=127.0.0.1:{port}",
        "--profile",
        "--state-dir",
        str(state_dir),
        "--reconnect",
        "0.5",
        *more,
    ]


def start_evaluate(port: int, state_dir: Path, *more: str) -> Evaluating:
    """``gridwire evaluate der`` against 127.0.0.1:``port``, logging at INFO to stderr."""
    proc = subprocess.Popen(
        [*evaluate_args(port, state_dir, *more), "--log-level", os.environ.get("GW_LOG", "INFO")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    evaluating = Evaluating(proc)

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            evaluating.lines.append(line)
            if "command of evaluation check" in line:
                evaluating.commanded.set()

    evaluating.reader = threading.Thread(target=read, daemon=True)
    evaluating.reader.start()
    return evaluating


def run_evaluate(port: int, state_dir: Path, *more: str) -> tuple[int, str, str]:
    done = subprocess.run(
        evaluate_args(port, state_dir, *more),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


# --- an independent look at the simulated DER -------------------------------------------------


def _window(point_map: PointMap) -> range:
    block = point_map.curve_block
    assert block is not None
    return range(block.selector, block.output(CURVE_FIRST_X + 2 * block.max_points))


async def _look(port: int, curves: int) -> dict[str, object]:
    chosen = demo_map()
    master = DerMaster(allow_control=True, profiles=lambda name: chosen)
    try:
        settings = OutstationSettings(
            name=LOOK, host="127.0.0.1", port=port, profile="ieee1815.2", manual=True
        )
        await master.add(settings)
        window = _window(chosen)
        points = [p for p in chosen.by_kind(Kind.BO)]
        points += [p for p in chosen.by_kind(Kind.AO) if p.index not in window]
        points += [p for p in (chosen.at("BI14"), chosen.at("BI15")) if p is not None]
        readings, _ = await read_points(master, LOOK, points)
        found: dict[str, object] = {r.address: r.raw for r in readings}
        block = chosen.curve_block
        assert block is not None
        shown, _ = await read_points(master, LOOK, [chosen.get(Kind.AI, block.readback)])  # type: ignore[list-item]
        found["shown"] = shown[0].raw
        for number in range(1, curves + 1):
            curve = await der_curve(master, LOOK, chosen, number)
            fields = dataclasses.fields(CurveReading)
            found[f"curve {number}"] = {f.name: getattr(curve, f.name) for f in fields}
        raw = shown[0].raw
        assert isinstance(raw, int)
        await master.operate_controls(LOOK, [Control("ao", block.selector, raw, 1)])
        return found
    finally:
        await master.close()


def look(port: int, curves: int = 4) -> dict[str, object]:
    """Every output (BO, AO but the curve window), BI14/BI15 (started, stopped), the curve
    shown and each stored curve, read by a master of the test's own (it selects each curve to
    read it, then the one shown again)."""
    return asyncio.run(_look(port, curves))


def as_before(port: int, before: dict[str, object], wait: float = 4.0) -> dict[str, object]:
    """The outstation looked at until it is as ``before`` (a start's latch goes off on the
    simulated DER's next tick), at most ``wait`` seconds; what was seen last."""
    deadline = time.monotonic() + wait
    while True:
        now = look(port)
        if now == before or time.monotonic() > deadline:
            return now
        time.sleep(0.5)


def differences(before: dict[str, object], after: dict[str, object]) -> dict[str, object]:
    return {
        k: (before.get(k), after.get(k))
        for k in before.keys() | after.keys()
        if before.get(k) != after.get(k)
    }


# --- a relay the test can cut -----------------------------------------------------------------


class Relay:
    """A TCP relay on a free port of 127.0.0.1 to ``target``, in a thread of its own, which
    holds what the outstation sends ``delay`` seconds (so that a check lasts long enough to
    be stopped mid-way). :meth:`cut` closes every connection and refuses new ones until
    :meth:`resume`."""

    def __init__(self, target: int, delay: float = 0.0) -> None:
        self.target = target
        self.delay = delay
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._up = True
        self._writers: set[asyncio.StreamWriter] = set()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.Server | None = None

    def __enter__(self) -> Relay:
        self._thread.start()
        assert self._ready.wait(5)
        return self

    def __exit__(self, *exc: object) -> None:
        self._call(self._close_all)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def cut(self) -> None:
        """Every connection closed, and none taken (connection refused) until resumed."""
        self._up = False
        self._call(self._close_all)

    def resume(self) -> None:
        self._up = True
        done = threading.Event()

        def listen() -> None:
            async def start() -> None:
                self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
                done.set()

            self._loop.create_task(start())

        self._loop.call_soon_threadsafe(listen)
        assert done.wait(5)

    def _call(self, function: Callable[[], None]) -> None:
        done = threading.Event()

        def call() -> None:
            function()
            done.set()

        self._loop.call_soon_threadsafe(call)
        done.wait(5)

    def _close_all(self) -> None:
        if self._server is not None and not self._up:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", self.port)
        )
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            if self._server is not None:
                self._server.close()
            self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self._up:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}

        async def pump(
            source: asyncio.StreamReader, sink: asyncio.StreamWriter, delay: float
        ) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await source.read(4096):
                    if delay:
                        await asyncio.sleep(delay)
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pump(reader, up_writer, 0.0), pump(up_reader, writer, self.delay))


@contextlib.contextmanager
def relayed(target: int, delay: float = 0.0) -> Iterator[Relay]:
    with Relay(target, delay) as relay:
        yield relay
