"""``gridwire console``, ``serve``, ``config`` and ``poll`` as a user runs them: subprocesses,
talking to yadnp3's outstation (or the demo's simulated DER) over real sockets."""

from __future__ import annotations

import re
import shlex
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests.support.net import free_port, wait_listening
from tests.support.peers import yadnp3_outstation
from tests.support.processes import running

GRIDWIRE = [sys.executable, "-m", "gridwire"]


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """A command that ends by itself: its exit status and output."""
    with running([*GRIDWIRE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@contextmanager
def started(*args: str, ready: str) -> Iterator[tuple[subprocess.Popen[str], re.Match[str]]]:
    """A long-running command, once it has printed a line matching ``ready``."""
    with running([*GRIDWIRE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = re.search(ready, line)
            if match:
                yield proc, match
                return
        raise AssertionError(f"{args[0]} did not start: {proc.stderr and proc.stderr.read()}")


def line_call(port: int, message: dict[str, Any]) -> dict[str, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(orjson.dumps(message) + b"\n")
        answer = sock.makefile("rb").readline()
    decoded: dict[str, Any] = orjson.loads(answer)
    return decoded


def one_line_error(result: subprocess.CompletedProcess[str], command: str) -> str:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gridwire {command}: "), result.stderr
    return lines[0]


def test_config_prints_a_complete_configuration_that_loads_back(tmp_path: Path) -> None:
    printed = run_cli("config")
    assert printed.returncode == 0, printed.stderr
    config = orjson.loads(printed.stdout)
    assert set(config) == {
        "allow_control", "outstations", "channels", "connect_wait", "tables", "device_profile",
        "capture", "state_dir", "trace_budget", "log_file", "log_level", "console", "serve",
        "evaluate",
    }  # fmt: skip
    assert config["state_dir"] is None
    assert config["trace_budget"] == 256 * 1024 * 1024
    budget = run_cli("config", "--trace-budget", "64MiB")
    assert orjson.loads(budget.stdout)["trace_budget"] == 64 * 1024 * 1024
    refused = run_cli("config", "--trace-budget", "lots")
    assert refused.returncode != 0 and "--trace-budget 'lots' is not a size" in refused.stderr
    assert orjson.loads(run_cli("config", "--state-dir", "/srv/j").stdout)["state_dir"] == "/srv/j"
    assert config["console"] == {"bind": "127.0.0.1:8815", "token": None, "new_token": True}
    assert config["serve"] == {"bind": "127.0.0.1:8816"}
    example = config["outstations"][0]
    assert example["reconnect"] == 5.0 and example["outstation_address"] == 1024
    saved = tmp_path / "gridwire.json"
    saved.write_text(printed.stdout)
    again = run_cli("config", "--config", str(saved))
    assert orjson.loads(again.stdout) == config
    flagged = run_cli(
        "config", "--config", str(saved), "--outstation", "feeder=[::1]:20001", "--manual",
        "--reconnect", "never", "--unsolicited", "3,1", "--profile", "--allow-control",
        "--outstation-address", "10",
    )  # fmt: skip
    assert flagged.returncode == 0, flagged.stderr
    result = orjson.loads(flagged.stdout)
    assert result["allow_control"] is True
    feeder = next(o for o in result["outstations"] if o["name"] == "feeder")
    assert (feeder["host"], feeder["port"]) == ("::1", 20001)
    for outstation in result["outstations"]:  # the flags apply to the file's too
        assert outstation["manual"] is True and outstation["reconnect"] is None
        assert outstation["tasks"] == {"enable_unsolicited": [1, 3]}
        assert outstation["profile"] == "ieee1815.2"
        assert outstation["outstation_address"] == 10


def test_bad_flags_and_files_are_one_line_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"outstations": [')
    assert "not JSON" in one_line_error(run_cli("config", "--config", str(broken)), "config")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"outstations": [{"name": "a", "host": "h", "port": "20000"}]}')
    message = one_line_error(run_cli("serve", "--config", str(wrong)), "serve")
    assert "outstations.0.port" in message
    unknown = tmp_path / "unknown.json"
    unknown.write_text('{"alow_control": true}')
    assert "alow_control" in one_line_error(run_cli("config", "--config", str(unknown)), "config")
    missing = one_line_error(run_cli("console", "--config", str(tmp_path / "nope")), "console")
    assert "nope" in missing
    for args, text in (
        (("--outstation", "feeder"), "--outstation 'feeder' is not NAME=HOST:PORT"),
        (("--outstation", "a=h:99999"), "is not 0-65535"),
        (("--read-retries", "x"), "--read-retries 'x' is not a whole number"),
        (("--outstation-address", "70000", "--outstation", "a=h:1"), "--outstation-address"),
        (("--unsolicited", "4"), "classes are 1, 2 and 3"),
        (("--log-level", "loud"), "--log-level 'loud'"),
        (("--tls-ca", "ca.pem"), "TLS needs"),
        (("--token", "t", "--no-token"), "alternatives"),
    ):
        command = "console"
        assert text in one_line_error(run_cli(command, *args), command), args


def test_binds_beyond_loopback() -> None:
    port = free_port()
    refused = run_cli("console", "--bind", f"0.0.0.0:{port}", "--no-token")
    assert "beyond loopback needs a token" in one_line_error(refused, "console")
    line = run_cli("serve", "--bind", f"0.0.0.0:{port}")
    assert "this machine only" in one_line_error(line, "serve")


@pytest.mark.interop
def test_serve_answers_lines_and_stops(tmp_path: Path) -> None:
    log = tmp_path / "gridwire.log"
    with yadnp3_outstation(points=3) as peer:
        port = free_port()
        args = ["serve", "--bind", f"127.0.0.1:{port}", "--outstation", f"y=127.0.0.1:{peer.port}"]
        with started(*args, "--log-file", str(log), ready=r"listening on 127\.0\.0\.1:(\d+)") as (
            proc,
            match,
        ):
            assert int(match.group(1)) == port
            status = line_call(port, {"op": "status", "id": 1})
            assert status["result"]["outstations"][0]["connected"] is True
            scan = line_call(port, {"op": "scan", "outstation": "y", "params": {"kind": "class0"}})
            assert scan["result"]["object_count"] == 27
            refused = line_call(port, {"op": "restart", "outstation": "y"})
            assert refused["error"]["kind"] == "not_allowed"
            assert line_call(port, {"op": "stop"})["result"] == {"stopping": True}
            assert proc.wait(timeout=30) == 0
    text = log.read_text()
    assert "WARNING gridwire.commands: refused restart on y" in text


@pytest.mark.interop
def test_console_makes_a_token_and_stops_on_sigterm() -> None:
    with yadnp3_outstation(points=2) as peer:
        port = free_port()
        ready = r"on (http://127\.0\.0\.1:\d+/)\?token=(\S+)"
        args = [
            "console",
            "--bind",
            f"127.0.0.1:{port}",
            "--outstation",
            f"y=127.0.0.1:{peer.port}",
        ]
        with started(*args, ready=ready) as (proc, match):
            base, token = match.group(1), match.group(2)
            assert httpx.post(f"{base}api/status", timeout=30).status_code == 401
            answer = httpx.post(f"{base}api/status", params={"token": token}, json={}, timeout=30)
            assert answer.status_code == 200
            assert answer.json()["result"]["outstations"][0]["name"] == "y"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0


def test_console_demo_serves_the_simulated_der() -> None:
    port = free_port()
    args = ["console", "--demo", "--no-token", "--bind", f"127.0.0.1:{port}"]
    with started(*args, ready=r"on http://127\.0\.0\.1:\d+/\s") as (proc, _):
        wait_listening(port)
        base = f"http://127.0.0.1:{port}/api"
        profile = httpx.post(f"{base}/profile", json={"outstation": "der"}, timeout=30).json()
        ai = {p["index"]: p["name"] for p in profile["result"]["ai"]}
        assert ai[537] == "System meter active power"
        scan = httpx.post(
            f"{base}/read", json={"outstation": "der", "points": {"ai": [537]}}, timeout=30
        ).json()["result"]
        assert [(o["index"], o["name"]) for o in scan["objects"]] == [(537, ai[537])]
        refused = httpx.post(
            f"{base}/operate", json={"outstation": "der", "points": {"bo": {"0": True}}}, timeout=30
        )
        assert refused.status_code == 403  # the demo is read-only without --allow-control
        stop = httpx.post(f"{base}/stop", json={}, timeout=30)
        assert stop.json()["result"] == {"stopping": True}
        assert proc.wait(timeout=30) == 0


@pytest.mark.interop
def test_poll_reads_once() -> None:
    with yadnp3_outstation(points=2) as peer:
        printed = run_cli("poll", "--host", "127.0.0.1", "--port", str(peer.port), "--json")
        assert printed.returncode == 0, printed.stderr
        exchange = orjson.loads(printed.stdout)
        assert exchange["outcome"] == "complete" and exchange["object_count"] == 18
        assert exchange["request"][2:] == "013c02063c03063c04063c0106"
        text = run_cli("poll", "--host", "127.0.0.1", "--port", str(peer.port), "--kind", "outputs")
        lines = text.stdout.splitlines()
        assert lines[0].startswith("READ complete: 1 fragment(s), 4 object(s)")
        assert [line.split()[0] for line in lines[2:]] == ["bo", "bo", "ao", "ao"]
        requests = [r["fc"] for r in peer.received("request")]
        assert set(requests) <= {0x00, 0x01}  # a read and confirmations: nothing else
    nobody = free_port()
    down = run_cli("poll", "--host", "127.0.0.1", "--port", str(nobody))
    assert "cannot connect" in one_line_error(down, "poll")


def test_the_printed_example_works_as_pasted() -> None:
    # What `make demo` shows a newcomer first: the "try:" line must work as printed, with the
    # token the console made. Replayed from its own words (shlex), without needing curl.
    port = free_port()
    with started("console", "--demo", "--bind", f"127.0.0.1:{port}", ready=r"  try: (.*)") as (
        proc,
        match,
    ):
        words = shlex.split(match.group(1))
        assert words[:2] == ["curl", "-s"]
        headers = dict(words[i + 1].split(": ", 1) for i, word in enumerate(words) if word == "-H")
        body = words[words.index("-d") + 1]
        wait_listening(port)
        answer = httpx.post(words[-1], content=body, headers=headers, timeout=30).json()
        assert answer["ok"] is True, answer
        assert answer["result"]["function"] == "READ" and answer["result"]["object_count"] > 0
        assert headers["Authorization"].startswith("Bearer ")  # the token made at start
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
