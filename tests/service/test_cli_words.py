"""The command line's rough edges, as a new user meets them (issue 18): each case runs
``gridwire`` as a subprocess and reads what it prints."""

from __future__ import annotations

import errno
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from gridwire.net.sockets import connect_reason
from gridwire.simulator.misbehaviour import DER_MISBEHAVIOURS
from tests.service.test_cli import line_call, one_line_error, run_cli, started
from tests.support.net import free_port


def test_mistyped_option_gets_the_subcommands_usage_and_a_suggestion() -> None:
    result = run_cli("evaluate", "--allow-deviaton", "--outstation", "127.0.0.1:1")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: gridwire evaluate "), result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last == (
        "gridwire evaluate: error: unknown option --allow-deviaton "
        "(did you mean --allow-deviations?)"
    ), last
    far = run_cli("serve", "--zzzzzz")
    assert far.stderr.startswith("usage: gridwire serve "), far.stderr
    assert far.stderr.strip().endswith("gridwire serve: error: unknown option --zzzzzz")


def test_a_port_in_use_reads_the_same_in_every_command() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        where = f"127.0.0.1:{taken.getsockname()[1]}"
        for command, flags in (
            ("sim", ["--der", "--bind", where]),
            ("console", ["--no-token", "--bind", where]),
            ("serve", ["--bind", where]),
        ):
            line = one_line_error(run_cli(command, *flags), command)
            assert line == f"gridwire {command}: {where} is already in use", line


def test_a_refused_connect_says_connection_refused() -> None:
    port = free_port()
    for host in ("127.0.0.1", "localhost"):  # localhost: IPv6 and IPv4 both tried and refused
        line = one_line_error(run_cli("poll", "--host", host, "--port", str(port)), "poll")
        assert line == f"gridwire poll: cannot connect to {host}:{port}: connection refused"


def test_connect_reasons_are_words_from_the_errno() -> None:
    # What asyncio raises when a connect fails, worded without "[Errno 113] Connect call failed".
    def failed(code: int) -> OSError:
        return OSError(code, f"Connect call failed ('192.0.2.1', {code})")

    assert connect_reason(failed(errno.EHOSTUNREACH)) == "no route to host"
    assert connect_reason(failed(errno.ETIMEDOUT)) == "timed out"
    assert connect_reason(TimeoutError()) == "timed out"
    both = OSError(
        "Multiple exceptions: [Errno 111] Connect call failed ('::1', 9), "
        "[Errno 111] Connect call failed ('127.0.0.1', 9)"
    )
    assert connect_reason(both) == "connection refused"


def test_tables_and_device_profile_are_refused_at_start(tmp_path: Path) -> None:
    missing, garbage = tmp_path / "missing.json", tmp_path / "garbage.json"
    garbage.write_text("not json")
    bind = ["--bind", "127.0.0.1:0"]
    for command, more in (("serve", bind), ("console", bind), ("evaluate", ["der"])):
        line = one_line_error(run_cli(command, "--tables", str(missing), *more), command)
        assert (
            line
            == f"gridwire {command}: --tables {missing}: cannot read it (No such file or directory)"
        )
    line = one_line_error(run_cli("serve", "--tables", str(garbage), *bind), "serve")
    assert line.startswith(f"gridwire serve: --tables {garbage}: not JSON"), line
    line = one_line_error(run_cli("serve", "--device-profile", str(missing), *bind), "serve")
    assert line.endswith(f"document {missing} cannot be read: No such file or directory"), line
    assert line.startswith("gridwire serve: --device-profile: "), line
    line = one_line_error(run_cli("serve", "--device-profile", str(garbage), *bind), "serve")
    assert line.endswith("refused: it is not XML (syntax error: line 1, column 0)"), line


def test_sim_says_at_start_that_it_misbehaves_and_how() -> None:
    flags = ["--der", "--bind", f"127.0.0.1:{free_port()}"]
    broken = ["--misbehave", "accept_bad_crc", "--misbehave", "inputs_online_when_disabled"]
    with started("sim", *flags, *broken, ready="listening on") as (proc, _):
        assert proc.stdout is not None
        said = proc.stdout.readline().strip()
    assert said == (
        "gridwire sim: deviating on purpose, 2 outstation deviation(s) on (--misbehave): "
        "accept_bad_crc: answer a "
        f"frame whose header or data CRC is bad; inputs_online_when_disabled: "
        f"{DER_MISBEHAVIOURS['inputs_online_when_disabled']}"
    ), said
    with started("sim", "--der", "--bind", f"127.0.0.1:{free_port()}", ready="listening on") as (
        proc,
        _,
    ):
        assert proc.stdout is not None
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout.read() == "", "a well-behaved sim says nothing of deviating"


def test_stop_over_the_line_logs_who_asked(tmp_path: Path) -> None:
    log, port = tmp_path / "gridwire.log", free_port()
    args = ["serve", "--bind", f"127.0.0.1:{port}", "--log-file", str(log)]
    with started(*args, ready="listening on") as (proc, _):
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            asker = f"127.0.0.1:{sock.getsockname()[1]}"
            sock.sendall(b'{"op": "stop"}\n')
            assert b'"stopping":true' in sock.makefile("rb").readline()
        assert proc.wait(timeout=30) == 0
    assert f"INFO gridwire.service: stop asked by line {asker}: the service ends" in log.read_text()


def test_console_banner_and_token_refusals() -> None:
    bind = ["--bind", f"127.0.0.1:{free_port()}"]
    with started("console", "--no-token", *bind, ready="OpenAPI") as (proc, match):
        assert "Authorization" not in match.string, match.string
        assert "/api/<operation>, events" in match.string
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout is not None and "Authorization" not in proc.stdout.read()
    ready = r"on (http://127\.0\.0\.1:\d+/)\?token=(\S+)"
    with started("console", "--bind", f"127.0.0.1:{free_port()}", ready=ready) as (_, match):
        base, token = match.group(1), match.group(2)
        needed = httpx.post(f"{base}api/status", json={}, timeout=30)
        wrong = httpx.post(f"{base}api/status", params={"token": token + "x"}, timeout=30)
        assert (needed.status_code, wrong.status_code) == (401, 401)
        assert needed.json()["error"]["message"] == "a token is needed"
        assert wrong.json()["error"]["message"] == "token not accepted"


def test_a_misspelled_parameter_is_named_with_its_near_match() -> None:
    port, http = free_port(), free_port()
    wanted = "scan: unknown parameter outstaton (did you mean outstation?)"
    with started("serve", "--bind", f"127.0.0.1:{port}", ready="listening on"):
        answer = line_call(port, {"op": "scan", "params": {"outstaton": "der"}})
        assert answer["error"] == {"kind": "request", "message": wanted}
        far = line_call(port, {"op": "status", "params": {"zzz": 1}})
        assert far["error"]["message"] == "status: unknown parameter zzz"
    with started("console", "--no-token", "--bind", f"127.0.0.1:{http}", ready="OpenAPI"):
        answer = httpx.post(f"http://127.0.0.1:{http}/api/scan", json={"outstaton": "der"})
        assert answer.status_code == 400 and answer.json()["error"]["message"] == wanted


def test_a_command_imports_its_own_modules_alone() -> None:
    # `gridwire sim` builds the parser of sim alone: the web service's libraries (FastAPI,
    # uvicorn) and the workbook reader (openpyxl) stay unimported, where the whole command
    # line's parser imports them all; a mistyped command is told every command there is.
    probe = (
        "import sys; from gridwire.cli import build_parser; "
        "build_parser({only!r}).parse_args({words!r}); "
        "print(sorted(m for m in ('fastapi', 'uvicorn', 'openpyxl') if m in sys.modules))"
    )
    alone = subprocess.run(
        [sys.executable, "-c", probe.format(only="sim", words=["sim", "--bind", "127.0.0.1:1"])],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert alone.stdout.strip() == "[]", alone.stderr
    whole = subprocess.run(
        [sys.executable, "-c", probe.format(only=None, words=["sim", "--bind", "127.0.0.1:1"])],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert whole.stdout.strip() == "['fastapi', 'openpyxl', 'uvicorn']", whole.stderr
    mistyped = run_cli("simm", "--der")
    assert mistyped.returncode == 2, mistyped.stderr
    assert "invalid choice: 'simm'" in mistyped.stderr and "'worker'" in mistyped.stderr
