"""``gridwire gateway`` as a user runs it (a subprocess with a configuration file), killed
with SIGKILL mid-event and started again on the same store: no control and no Response is sent
twice. The head-end double and gridwire's simulated DER (which keeps every control it carried
out) run in the test's process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gridwire.outstation import run_outstation
from tests.gateway.conftest import CountingDer, der_control
from tests.gateway.headend_der import DerHeadEnd, Program
from tests.sep2.pki import Pki
from tests.support.processes import running
from tests.support.waiting import until

DEFAULT = "<DERControlBase><opModMaxLimW>10000</opModMaxLimW></DERControlBase>"


def config(tmp_path: Path, headend: DerHeadEnd, pki: Pki, der_port: int) -> Path:
    path = tmp_path / "gateway.toml"
    path.write_text(
        f'[server]\nurl = "{headend.url}"\nretry_initial_seconds = 0.05\n'
        "retry_max_seconds = 0.5\n"
        f'[tls]\nca = "{pki.ca}"\ncertificate = "{pki.device_certificate}"\n'
        f'key = "{pki.device_key}"\n'
        f'[der]\nhost = "127.0.0.1"\nport = {der_port}\n'
        '[gateway]\nstore = "gateway.sqlite"\nseed = 1\n'
    )
    return path


def gateway(path: Path) -> list[str]:
    return [sys.executable, "-m", "gridwire", "gateway", "--config", str(path), "--allow-control"]


async def test_killed_mid_event_and_over_an_event_end_nothing_twice(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    limit = "<opModMaxLimW>5000</opModMaxLimW>"
    program = Program(1, [], DEFAULT)
    headend.programs = [program]
    sim = CountingDer()
    env = {**os.environ, "HOME": str(tmp_path)}  # no installed tables: the demo map
    log = (tmp_path / "gateway.log").open("w")
    async with run_outstation(sim, "127.0.0.1", 0) as server:
        command = gateway(config(tmp_path, headend, pki, server.port))
        kw = {"env": env, "stdout": subprocess.DEVNULL, "stderr": log}
        with running(command, **kw) as first:
            # Events are made once the gateway is up, so its start-up time does not count.
            await until(lambda: headend.requests_to("/derp/0/derc") > 0, within=20)
            now = time.time()
            program.controls.append(der_control("E1", int(now) + 2, 2, limit))
            await until(lambda: ("E1", 2) in headend.responses(), within=10)
            await until(lambda: ("ao", 88, 500) in sim.received, within=5)
            os.kill(first.pid, signal.SIGKILL)  # mid-event
            first.wait(5)
        await until(lambda: time.time() > now + 4.5, within=10)  # E1 ends while it is down
        with running(command, **kw) as second:
            await until(lambda: ("E1", 3) in headend.responses(), within=20)
            program.controls.append(der_control("E2", int(time.time()) + 2, 4, limit))
            await until(lambda: ("E2", 2) in headend.responses(), within=10)
            await until(lambda: sim.received.count(("ao", 88, 500)) == 2, within=5)
            os.kill(second.pid, signal.SIGKILL)  # mid-event again
            second.wait(5)
        with running(command, **kw):
            await until(lambda: ("E2", 3) in headend.responses(), within=20)
            await until(lambda: sim.received[-1] == ("ao", 88, 1000), within=5)
    log.close()
    assert headend.responses() == [
        ("E1", 1),
        ("E1", 2),
        ("E1", 3),
        ("E2", 1),
        ("E2", 2),
        ("E2", 3),
    ]
    # E1's limit; the default, put back by the second run (E1 had ended meanwhile); E2's
    # limit; the default again after E2: each once, none sent again at a restart.
    assert [c for c in sim.received if c[:2] == ("ao", 88)] == [
        ("ao", 88, 500),
        ("ao", 88, 1000),
        ("ao", 88, 500),
        ("ao", 88, 1000),
    ]
