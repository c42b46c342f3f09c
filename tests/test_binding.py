"""One rule for every address a gridwire program binds: ``console``, ``serve``, ``sim`` and
``sep2`` read the same text the same way, from their flags and from their configuration files,
and refuse the same text with one line naming the setting and the rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridwire.cli import build_parser
from gridwire.cli import sep2 as sep2_cli
from gridwire.cli.config import config_from_args
from gridwire.cli.sim import settings_of
from gridwire.errors import ConfigError
from gridwire.net.binding import RULE, is_loopback, parse_bind
from gridwire.sep2.config import build_config, read_config_file
from gridwire.service.config import load_config
from gridwire.simulator.config import load_settings

Address = tuple[str, int]
# Each program's entry points for a bind text, with the port it takes when the text names
# none and the name of the setting its refusal must give.
EntryPoint = Callable[[str, Path], Address]


def _console_flag(text: str, folder: Path) -> Address:
    args = build_parser().parse_args(["console", f"--bind={text}"])
    return config_from_args(args, "console").console.address()


def _serve_flag(text: str, folder: Path) -> Address:
    args = build_parser().parse_args(["serve", f"--bind={text}"])
    return config_from_args(args, "serve").serve.address()


def _console_file(text: str, folder: Path) -> Address:
    path = folder / "service.json"
    path.write_text(json.dumps({"console": {"bind": text}}))
    return load_config(path).console.address()


def _serve_file(text: str, folder: Path) -> Address:
    path = folder / "service.json"
    path.write_text(json.dumps({"serve": {"bind": text}}))
    return load_config(path).serve.address()


def _sim_flag(text: str, folder: Path) -> Address:
    settings = settings_of(build_parser().parse_args(["sim", f"--bind={text}"]))
    return settings.host, settings.port


def _sim_file(text: str, folder: Path) -> Address:
    path = folder / "sim.json"
    path.write_text(json.dumps({"bind": text}))
    settings = load_settings(path)
    return settings.host, settings.port


def _sep2_flag(text: str, folder: Path) -> Address:
    args = build_parser().parse_args(["sep2", f"--api-bind={text}"])
    address = sep2_cli.load_settings(args).api.address()
    assert address is not None
    return address


def _sep2_file(text: str, folder: Path) -> Address:
    path = folder / "sep2.toml"
    path.write_text(f"[api]\nbind = {json.dumps(text)}\n")  # a JSON string is a TOML one
    address = build_config(read_config_file(path)).api.address()
    assert address is not None
    return address


ENTRY_POINTS: dict[str, tuple[EntryPoint, int, str]] = {
    "console --bind": (_console_flag, 8815, "--bind"),
    "console.bind": (_console_file, 8815, "console.bind"),
    "serve --bind": (_serve_flag, 8816, "--bind"),
    "serve.bind": (_serve_file, 8816, "serve.bind"),
    "sim --bind": (_sim_flag, 20000, "--bind"),
    "sim bind": (_sim_file, 20000, "bind"),
    "sep2 --api-bind": (_sep2_flag, 8830, "--api-bind"),
    "sep2 api.bind": (_sep2_file, 8830, "api.bind"),
}

# Text -> (host, port), None for the program's own port.
ACCEPTED: dict[str, tuple[str, int | None]] = {
    "127.0.0.1:9001": ("127.0.0.1", 9001),
    "127.0.0.1": ("127.0.0.1", None),
    ":9002": ("127.0.0.1", 9002),
    "[::1]:9003": ("::1", 9003),
    "[::1]": ("::1", None),
    "[::]:9004": ("::", 9004),
    "localhost:9005": ("localhost", 9005),
    "localhost": ("localhost", None),
    "0.0.0.0:0": ("0.0.0.0", 0),
    "gateway.example:65535": ("gateway.example", 65535),
    " 127.0.0.1:9006 ": ("127.0.0.1", 9006),
}
# Text -> what the refusal says is wrong.
REFUSED: dict[str, str] = {
    "": "names no address",
    "::1": "an IPv6 address goes in brackets, as [::1]:8815",
    "::1:8815": "an IPv6 address goes in brackets, as [::1]:8815",
    "8815": "'8815' is not a host (a port alone is written :8815)",
    "127.0.0.1:": "no port follows the ':'",
    "[::1]:": "no port follows the ':'",
    "127.0.0.1:65536": "the port '65536' is not 0-65535",
    "127.0.0.1:http": "the port 'http' is not 0-65535",
    "127.0.0.1:-1": "the port '-1' is not 0-65535",
    "[::1": "an IPv6 address in brackets needs its closing ]",
    "[::1]8815": "only :PORT may follow the ]",
    "[localhost]:1": "'localhost' in brackets is not an IPv6 address",
    "300.1.2.3:1": "'300.1.2.3' is not an IPv4 address",
    "two words:1": "'two words' is not a host name or address",
    "-host:1": "'-host' is not a host name or address",
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("text", sorted(ACCEPTED))
def test_every_program_reads_a_bind_alike(entry: str, text: str, tmp_path: Path) -> None:
    read, default_port, _ = ENTRY_POINTS[entry]
    host, port = ACCEPTED[text]
    assert read(text, tmp_path) == (host, default_port if port is None else port)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("text", sorted(REFUSED))
def test_every_program_refuses_a_bind_alike(entry: str, text: str, tmp_path: Path) -> None:
    read, _, setting = ENTRY_POINTS[entry]
    with pytest.raises(ConfigError) as caught:
        read(text, tmp_path)
    message = str(caught.value)
    assert message.endswith(f"{setting} {text!r}: {REFUSED[text]}; expected {RULE}")
    assert "\n" not in message


def test_the_rule_itself() -> None:
    assert parse_bind("[fe80::1%eth0]:5", 1) == ("fe80::1%eth0", 5)
    assert parse_bind("host.example.", 7) == ("host.example.", 7)
    long_name = ".".join(["a" * 63] * 4)  # 255 characters: beyond a DNS name's 253
    with pytest.raises(ConfigError, match="is not a host name"):
        parse_bind(long_name, 1)
    with pytest.raises(ConfigError, match="longer than 300 characters"):
        parse_bind("a" * 301, 1)
    with pytest.raises(ConfigError, match=r"^api\.bind '٨٠': '٨٠' is not a host name"):
        parse_bind("٨٠", 1, "api.bind")  # digits, but not ASCII ones
    with pytest.raises(ConfigError, match=r"the port '١٢' is not 0-65535"):
        parse_bind("h:١٢", 1)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LocalHost.", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.0.2.1", False),
        ("gateway.example", False),
        ("localhost.example", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@given(st.text(max_size=400))
def test_any_text_is_read_or_refused_with_our_error(text: str) -> None:
    try:
        host, port = parse_bind(text, 8815, "--bind")
    except ConfigError as exc:
        assert str(exc).startswith("--bind ") and "\n" not in str(exc)
        return
    assert 0 <= port <= 65535 and host and host == host.strip()


@given(
    st.sampled_from(["127.0.0.1", "localhost", "[::1]", "[2001:db8::7]", "10.1.2.3", ""]),
    st.integers(0, 65535),
)
def test_host_and_port_come_back(host: str, port: int) -> None:
    expected = host.strip("[]") or "127.0.0.1"
    assert parse_bind(f"{host}:{port}", 1) == (expected, port)
