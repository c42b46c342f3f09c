"""``gridwire gateway`` end to end: from an event's start on the head-end's clock to the
control's arrival at the outstation, and the gateway's CPU and memory at rest.

The head-end test double (real mutual TLS on 127.0.0.1, its clock set an hour ahead of this
machine's so the figure shows the head-end's clock is the one followed) serves one program;
gridwire's simulated DER, in this process, notes when each control arrives; ``gridwire
gateway`` runs as a subprocess. Each event is made a few seconds ahead with randomizeStart 0,
so the gateway knows it before it starts: the latency is the gateway's own (waking on time,
the DNP3 write), not the poll. At rest: the DER function set polled every 60 s, the CPU time
and resident memory of the gateway process over 20 s, read from /proc.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.gateway.conftest import CountingDer, der_control
from tests.gateway.headend_der import DerHeadEnd, Program
from tests.sep2.headend import Device, Fsa, lfdi_of
from tests.sep2.pki import make_pki
from tests.support.processes import running

from gridwire.outstation import run_outstation

AHEAD = 3600.0  # the head-end's clock, ahead of this machine's
EVENTS = 5
REST_SECONDS = 20.0


class TimedDer(CountingDer):
    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[tuple[float, tuple[str, int, int | float]]] = []

    def control(self, command, mode, now):  # type: ignore[no-untyped-def]
        status = super().control(command, mode, now)
        if mode != "select" and self.received:
            self.arrivals.append((time.time(), self.received[-1]))
        return status


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _wait(condition, within: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("the gateway did not get there in time")
        await asyncio.sleep(0.01)


async def _run(folder: Path) -> None:
    pki = make_pki(folder / "pki")
    headend = DerHeadEnd(pki)
    headend.devices = [Device(lfdi=lfdi_of(pki.device_der), fsas=[Fsa("own")])]
    headend.clock_offset = {"/tm": AHEAD, "/edev/0/fsa/0/tm": AHEAD}
    program = Program(1, [], "<DERControlBase><opModMaxLimW>10000</opModMaxLimW></DERControlBase>")
    headend.programs = [program]
    sim = TimedDer()
    with headend:
        async with run_outstation(sim, "127.0.0.1", 0) as server:
            config = folder / "gateway.toml"
            config.write_text(
                f'[server]\nurl = "{headend.url}"\n'
                f'[tls]\nca = "{pki.ca}"\ncertificate = "{pki.device_certificate}"\n'
                f'key = "{pki.device_key}"\n'
                f'[der]\nhost = "127.0.0.1"\nport = {server.port}\n'
                '[gateway]\nstore = "gateway.sqlite"\nseed = 1\n'
            )
            command = [sys.executable, "-m", "gridwire", "gateway", "--config", str(config)]
            env = {**os.environ, "HOME": str(folder)}
            log = (folder / "gateway.log").open("w")
            with running(
                [*command, "--allow-control"], env=env, stdout=subprocess.DEVNULL, stderr=log
            ) as proc:
                await _wait(lambda: headend.requests_to("/derp/0/derc") > 0, 60)
                latencies = []
                for n in range(EVENTS):
                    start = int(time.time() + AHEAD) + 3
                    limit = 2000 + 1000 * n
                    program.controls.append(
                        der_control(f"B{n}", start, 2, f"<opModMaxLimW>{limit}</opModMaxLimW>")
                    )
                    wanted = ("ao", 88, limit // 10)
                    await _wait(lambda w=wanted: any(a[1] == w for a in sim.arrivals), 15)
                    arrived = next(t for t, c in sim.arrivals if c == wanted)
                    latencies.append(arrived + AHEAD - start)
                    await _wait(lambda n=n: (f"B{n}", 3) in headend.responses(), 15)
                program.poll_rate = 60
                await asyncio.sleep(3)
                cpu0, wall0 = _cpu_seconds(proc.pid), time.monotonic()
                await asyncio.sleep(REST_SECONDS)
                cpu = (_cpu_seconds(proc.pid) - cpu0) / (time.monotonic() - wall0)
                rss = _rss_mib(proc.pid)
            log.close()
    ms = sorted(1000 * x for x in latencies)
    print(
        f"   event start (head-end clock, {AHEAD:+.0f} s) -> control at the outstation: "
        f"median {statistics.median(ms):.0f} ms, max {ms[-1]:.0f} ms over {EVENTS} events "
        "(the head-end's whole-second clock puts up to 500 ms either way)"
    )
    print(f"   at rest (polls every 60 s): CPU {100 * cpu:.2f} % of a core, RSS {rss:.0f} MiB")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_run(Path(folder)))


if __name__ == "__main__":
    main()
