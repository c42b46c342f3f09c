"""``gridwire sim`` as a user runs it: a subprocess on a free port, scanned by yadnp3's master."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gridwire.cli import main
from tests.support.net import free_port, wait_listening
from tests.support.peers import yadnp3_master
from tests.support.processes import running

pytestmark = pytest.mark.interop


@contextmanager
def sim(*args: str) -> Iterator[tuple[int, str]]:
    """Run ``gridwire sim`` on a free port; yields the port and the line it printed."""
    port = free_port()
    cmd = [sys.executable, "-m", "gridwire", "sim", "--bind", f"127.0.0.1:{port}", *args]
    with running(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr else "no output"
        wait_listening(port)
        yield port, line


def test_sim_der_is_scanned_by_yadnp3() -> None:
    with sim("--der", "--unsolicited") as (port, line):
        assert "simulated DER" in line and f"127.0.0.1:{port}" in line
        assert "unsolicited allowed" in line
        with yadnp3_master(port) as master:
            scan = master.scan()
            assert scan.result == "SUCCESS"
            assert scan.value("analog", 0)["value"] == 100.0  # profile version, times 100
            reply = master.operate("crob", 28, mode="direct", op_type="LATCH_ON")
            assert reply["summary"] == "SUCCESS"


def test_sim_generic_database_from_a_config_file(tmp_path: Path) -> None:
    database = tmp_path / "points.json"
    database.write_text(json.dumps({"points": {"ai": [{"index": 3, "value": 42}], "bo": 2}}))
    config = tmp_path / "sim.json"
    config.write_text(
        json.dumps({"database": "points.json", "outstation_address": 10, "master_address": 3})
    )
    with sim("--config", str(config)) as (port, line):
        assert "outstation 10, master 3" in line
        with yadnp3_master(port, local=3, remote=10) as master:
            scan = master.scan()
            assert scan.reply["counts"] == {"analog": 1, "binary_output_status": 2}
            assert scan.value("analog", 3)["value"] == 42.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tables", "x.json"], "--tables is the DER's point map"),
        (["--der", "--database", "x.json"], "--database is for the generic outstation"),
        (["--tls-ca", "ca.pem"], "TLS needs --tls-ca, --tls-certificate and --tls-key"),
        (["--bind", "127.0.0.1:99999"], "the port '99999' is not 0-65535"),
        (["--outstation-address", "1", "--master-address", "1"], "must differ"),
        (["--database", "/nonexistent/db.json"], "cannot read database file"),
    ],
)
def test_sim_refuses_bad_settings(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", *args]) == 2
    assert message in capsys.readouterr().err
