"""``gridwire sep2`` run as a subprocess against the head-end double: one round with
``--once``, the API served over HTTP, settings from a file with flags overriding, and one-line
errors for a bad certificate, a refused handshake and an unreachable head-end."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.sep2.headend import HeadEndDouble
from tests.sep2.pki import Pki
from tests.support.net import free_port, wait_listening
from tests.support.processes import running

GRIDWIRE = [sys.executable, "-m", "gridwire", "sep2"]


def tls_flags(pki: Pki, certificate: Path | None = None, key: Path | None = None) -> list[str]:
    return [
        "--tls-ca", str(pki.ca),
        "--tls-certificate", str(certificate or pki.device_certificate),
        "--tls-key", str(key or pki.device_key),
    ]  # fmt: skip


def once(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GRIDWIRE, "--once", *args], capture_output=True, text=True, timeout=60, check=False
    )


def one_line_error(result: subprocess.CompletedProcess[str], pattern: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gridwire sep2: ")
    assert pattern in lines[0], lines[0]


@pytest.mark.serial  # the reading is held to 3 s of the clock once the process has ended
def test_once_prints_the_reading(headend: HeadEndDouble, pki: Pki) -> None:
    headend.clock_offset["/tm"] = -7200.0
    result = once("--server", headend.url, *tls_flags(pki))
    assert result.returncode == 0, result.stderr
    reading = json.loads(result.stdout)
    assert reading["source"] == "server" and abs(reading["offset_seconds"] + 7200) <= 1.5
    assert abs(reading["current_time"] - (time.time() - 7200)) <= 3


def test_bad_certificate_is_one_line(headend: HeadEndDouble, pki: Pki, tmp_path: Path) -> None:
    junk = tmp_path / "device.pem"
    junk.write_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    result = once("--server", headend.url, *tls_flags(pki, certificate=junk))
    one_line_error(result, "tls.certificate")
    mismatched = once("--server", headend.url, *tls_flags(pki, key=pki.other_device_key))
    one_line_error(mismatched, "is not the key of tls.certificate")


def test_refused_handshake_is_one_line(headend: HeadEndDouble, pki: Pki) -> None:
    flags = tls_flags(pki, pki.rogue_device_certificate, pki.rogue_device_key)
    result = once("--server", headend.url, *flags)
    one_line_error(result, f"head-end {headend.url} refused the TLS handshake")


def test_unreachable_head_end_is_one_line(pki: Pki) -> None:
    url = f"https://127.0.0.1:{free_port()}"
    result = once("--server", url, *tls_flags(pki))
    one_line_error(result, f"head-end {url} unreachable: connection refused (GET {url}/dcap)")


def test_bad_settings_are_one_line(pki: Pki, tmp_path: Path) -> None:
    config = tmp_path / "sep2.toml"
    config.write_text('[server]\nurl = "https://127.0.0.1:1"\nbogus = 1\n')
    one_line_error(once("--config", str(config)), "server.bogus: Extra inputs are not permitted")
    one_line_error(
        once("--server", "http://127.0.0.1:1", *tls_flags(pki)), "server.url: Value error"
    )
    serve = subprocess.run(
        [*GRIDWIRE, "--server", "https://127.0.0.1:1", *tls_flags(pki)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    one_line_error(serve, "api.bind is not set")


def write_config(path: Path, headend: HeadEndDouble, pki: Pki, bind: str) -> None:
    # Certificate paths relative to the file's own folder.
    for source in (pki.ca, pki.device_certificate, pki.device_key):
        (path.parent / source.name).write_bytes(source.read_bytes())
    path.write_text(
        f'[server]\nurl = "{headend.url}"\ndcap_path = "/dcap"\nfsa_stale_seconds = 5000\n'
        "retry_initial_seconds = 0.1\nretry_max_seconds = 0.5\n\n"
        f'[tls]\nca = "{pki.ca.name}"\ncertificate = "{pki.device_certificate.name}"\n'
        f'key = "{pki.device_key.name}"\n\n[api]\nbind = "{bind}"\n'
    )


def wait_json(
    url: str, condition: object, within: float = 30.0, headers: dict[str, str] | None = None
) -> dict[str, object]:
    assert callable(condition)
    deadline = time.monotonic() + within
    while True:
        body: dict[str, object] = httpx.get(url, headers=headers, timeout=5).json()
        if condition(body):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.1)


def test_serves_the_api_with_settings_from_file_and_flags(
    headend: HeadEndDouble, pki: Pki, tmp_path: Path
) -> None:
    headend.clock_offset["/tm"] = 3600.0
    port = free_port()
    config = tmp_path / "sep2.toml"
    write_config(config, headend, pki, bind="127.0.0.1:1")  # the flag below overrides it
    cmd = [*GRIDWIRE, "--config", str(config), "--api-bind", f"127.0.0.1:{port}",
           "--fsa-stale-seconds", "7200"]  # fmt: skip
    with running(cmd, stderr=subprocess.PIPE) as proc:
        wait_listening(port, timeout=30)
        base = f"http://127.0.0.1:{port}"
        status = wait_json(
            f"{base}/api/v1/status", lambda b: b["connection"]["state"] == "connected"
        )
        timebase = status["timebase"]
        assert isinstance(timebase, dict) and timebase["fsa_stale_seconds"] == 7200
        text = httpx.get(f"{base}/api/v1/time", headers={"Accept": "text/plain"}, timeout=5)
        assert text.headers["cache-control"] == "no-store"
        assert abs(int(text.text) - (time.time() + 3600)) <= 3
        assert httpx.get(f"{base}/docs", timeout=5).status_code == 200
        assert proc.poll() is None


def test_api_stays_up_while_the_head_end_is_unreachable(pki: Pki, tmp_path: Path) -> None:
    port = free_port()
    url = f"https://127.0.0.1:{free_port()}"
    cmd = [*GRIDWIRE, "--server", url, *tls_flags(pki), "--api-bind", f"127.0.0.1:{port}"]
    with running(cmd, stderr=subprocess.PIPE) as proc:
        wait_listening(port, timeout=30)
        base = f"http://127.0.0.1:{port}"
        status = wait_json(f"{base}/api/v1/status", lambda b: b["connection"]["state"] == "failed")
        connection = status["connection"]
        assert isinstance(connection, dict) and "connection refused" in str(connection["error"])
        reading = httpx.get(f"{base}/api/v1/time", timeout=5)
        assert reading.status_code == 503 and reading.json()["source"] == "unavailable"
        # The console's rule on Host and Origin holds here too (gridwire.net.http_origin).
        rebinding = httpx.get(f"{base}/api/v1/status", headers={"Host": "evil.example"})
        foreign = httpx.get(f"{base}/api/v1/status", headers={"Origin": "http://evil.example"})
        for refused in (rebinding, foreign):
            assert refused.status_code == 403, refused.text
            assert refused.json()["detail"]["kind"] == "forbidden"
    assert proc.stderr is not None
    logged = proc.stderr.read()
    refused = [line for line in logged.splitlines() if "unreachable: connection refused" in line]
    assert len(refused) == 1, logged  # said once, not at every retry


@pytest.mark.parametrize("bind", ["no sense", "127.0.0.1:99999"])
def test_bad_bind_is_one_line(pki: Pki, bind: str) -> None:
    result = subprocess.run(
        [*GRIDWIRE, "--server", "https://127.0.0.1:1", *tls_flags(pki), "--api-bind", bind],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    one_line_error(result, f"--api-bind {bind!r}: ")
    assert "; expected HOST:PORT, HOST, :PORT" in result.stderr


def test_once_logs_the_warning_that_explains_an_unavailable_reading(
    headend: HeadEndDouble, pki: Pki
) -> None:
    # Issue 9, item 14: --once logged nothing below error, whatever --log-level said.
    headend.faults["/tm"] = 404
    headend.devices[2].fsas = []
    result = once("--server", headend.url, *tls_flags(pki))
    assert result.returncode == 1 and json.loads(result.stdout)["source"] == "unavailable"
    explained = f"WARNING global Time {headend.url}/tm answered HTTP 404"
    assert explained in result.stderr, result.stderr
    quiet = once("--server", headend.url, *tls_flags(pki), "--log-level", "error")
    assert quiet.returncode == 1 and quiet.stderr == ""
    chatty = once("--server", headend.url, *tls_flags(pki), "--log-level", "info")
    assert f"INFO connected to head-end {headend.url}" in chatty.stderr
    assert explained in chatty.stderr


def test_once_shows_what_a_time_resource_left_out(headend: HeadEndDouble, pki: Pki) -> None:
    headend.time_fields["/tm"] = {"quality": None, "dstStartTime": None}
    result = once("--server", headend.url, *tls_flags(pki))
    assert result.returncode == 0 and json.loads(result.stdout)["quality"] is None
    assert f"WARNING Time {headend.url}/tm leaves out dstStartTime, quality" in result.stderr


def test_token_required_on_the_api_not_on_the_docs(headend: HeadEndDouble, pki: Pki) -> None:
    port = free_port()
    cmd = [*GRIDWIRE, "--server", headend.url, *tls_flags(pki), "--api-bind",
           f"127.0.0.1:{port}", "--api-token", "s3cret-Token_1"]  # fmt: skip
    with running(cmd, stderr=subprocess.PIPE) as proc:
        wait_listening(port, timeout=30)
        base = f"http://127.0.0.1:{port}"
        refused = httpx.get(f"{base}/api/v1/status", timeout=5)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert refused.json()["detail"]["kind"] == "unauthorized"
        assert httpx.get(f"{base}/api/v1/time?format=text", timeout=5).status_code == 401
        wrong = {"Authorization": "Bearer s3cret-Token_2"}
        assert httpx.get(f"{base}/api/v1/time", headers=wrong, timeout=5).status_code == 401
        good = {"Authorization": "Bearer s3cret-Token_1"}
        wait_json(f"{base}/api/v1/status", lambda b: b["connection"]["state"] == "connected",
                  headers=good)  # fmt: skip
        assert httpx.get(f"{base}/api/v1/time", headers=good, timeout=5).status_code == 200
        text = httpx.get(f"{base}/api/v1/time?format=text&token=s3cret-Token_1", timeout=5)
        assert text.status_code == 200 and text.text.isdigit()
        assert httpx.get(f"{base}/docs", timeout=5).status_code == 200
        assert httpx.get(f"{base}/openapi.json", timeout=5).status_code == 200
    assert proc.stderr is not None
    assert "beyond loopback" not in proc.stderr.read()  # on loopback: no warning


def test_token_from_the_config_file(headend: HeadEndDouble, pki: Pki, tmp_path: Path) -> None:
    config = tmp_path / "sep2.toml"
    port = free_port()
    write_config(config, headend, pki, bind=f"127.0.0.1:{port}")
    config.write_text(config.read_text() + 'token = "from-the-file"\n')  # under [api]
    with running([*GRIDWIRE, "--config", str(config)], stderr=subprocess.PIPE):
        wait_listening(port, timeout=30)
        base = f"http://127.0.0.1:{port}/api/v1/status"
        assert httpx.get(base, timeout=5).status_code == 401
        auth = {"Authorization": "Bearer from-the-file"}
        assert httpx.get(base, headers=auth, timeout=5).status_code == 200


@pytest.mark.parametrize(
    ("token", "warned"),
    [
        (None, "api.bind 192.0.2.1 is beyond loopback and api.token is not set"),
        ("s3cret", "api.bind 192.0.2.1 is beyond loopback: the API is plain HTTP"),
    ],
)
def test_binding_beyond_loopback_warns_at_start(pki: Pki, token: str | None, warned: str) -> None:
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes at start, and
    # then binding fails, so nothing listens beyond loopback during the test.
    flags = ["--api-token", token] if token else []
    result = subprocess.run(
        [*GRIDWIRE, "--server", "https://127.0.0.1:1", *tls_flags(pki), *flags,
         "--api-bind", f"192.0.2.1:{free_port()}"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    first, second = result.stderr.splitlines()
    assert first.startswith(f"gridwire sep2: WARNING {warned}")
    assert "cannot listen on 192.0.2.1" in second


def test_exposure_warning_only_beyond_loopback() -> None:
    from gridwire.cli.sep2 import exposure_warning

    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert exposure_warning(host, None) is None
    for host in ("0.0.0.0", "::", "192.0.2.1", "head-end.example"):
        assert exposure_warning(host, None) is not None
        assert exposure_warning(host, "t") is not None


@pytest.mark.parametrize("token", ["", "has space", "ünï"])
def test_unusable_token_is_one_line(pki: Pki, token: str) -> None:
    result = subprocess.run(
        [*GRIDWIRE, "--server", "https://127.0.0.1:1", *tls_flags(pki),
         "--api-bind", "127.0.0.1:1", "--api-token", token],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    one_line_error(result, "api.token")


def test_log_level_takes_any_case(pki: Pki) -> None:
    url = f"https://127.0.0.1:{free_port()}"
    result = once("--server", url, *tls_flags(pki), "--log-level", "INFO")
    one_line_error(result, f"head-end {url} unreachable: connection refused")
    loud = once("--server", url, *tls_flags(pki), "--log-level", "LOUD")
    assert "argument --log-level: invalid choice: 'loud'" in loud.stderr


def test_a_port_in_use_reads_as_in_every_command(pki: Pki) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        where = f"127.0.0.1:{taken.getsockname()[1]}"
        result = subprocess.run(
            [*GRIDWIRE, "--server", "https://127.0.0.1:1", *tls_flags(pki), "--api-bind", where],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    one_line_error(result, f"gridwire sep2: api.bind {where} is already in use")
