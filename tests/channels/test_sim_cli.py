"""``gridwire sim --addresses 1024,1025,1026 --serial DEVICE`` as a user runs it (a subprocess,
stopped by its pid): three simulated outstations on one end of a socat serial line, each polled
by a master on the other end through its link address."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gridwire.channels.settings import SerialChannel
from tests.channels.drops import ADDRESSES, NAMES, master_on
from tests.channels.ptys import pty_pair
from tests.support.processes import running


async def test_sim_answers_three_addresses_on_a_serial_device(tmp_path: Path) -> None:
    with pty_pair(tmp_path) as (master_end, sim_end):
        command = [sys.executable, "-m", "gridwire", "sim", "--addresses", "1024,1025,1026"]
        command += ["--serial", sim_end, "--baud", "19200"]
        with running(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert "outstations 1024, 1025, 1026" in line and "serial" in line, line
            master = await master_on(SerialChannel(name="line", device=master_end, baud=19200))
            try:
                for address in ADDRESSES:
                    exchange = await master.scan(NAMES[address], "integrity")
                    assert exchange.outcome == "complete"
                    assert exchange.object_count > 0
                    trace = master.trace(NAMES[address])
                    received = {f.source for f in trace if f.direction == "received"}
                    assert received == {address}  # the per-outstation trace: its frames only
            finally:
                await master.close()
