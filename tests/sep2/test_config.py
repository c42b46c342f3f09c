"""Settings: a TOML or JSON file holding every setting, flags overriding it key by key, and
refusals that name the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.errors import ConfigError
from gridwire.sep2.config import build_config, parse_bind, read_config_file


def test_json_file_with_relative_paths_and_overrides(tmp_path: Path) -> None:
    (tmp_path / "certs").mkdir()
    path = tmp_path / "sep2.json"
    path.write_text(
        json.dumps(
            {
                "server": {"url": "https://head-end:8443/", "dcap_path": "/sep2/dcap",
                           "use_server_time": False},
                "tls": {"ca": "certs/ca.pem", "certificate": "/abs/dev.pem", "key": "k.pem",
                        "ciphers": ["ECDHE-ECDSA-AES128-GCM-SHA256"]},
                "api": {"bind": "0.0.0.0:8830"},
            }
        )
    )  # fmt: skip
    config = build_config(
        read_config_file(path),
        {"server.fsa_stale_seconds": 900.0, "server.dcap_path": None, "api.bind": "[::1]:9000"},
    )
    assert config.server.url == "https://head-end:8443"
    assert config.server.dcap_path == "/sep2/dcap"  # None leaves the file's value
    assert config.server.fsa_stale_seconds == 900.0
    assert config.server.use_server_time is False
    assert config.tls.ca == (tmp_path / "certs" / "ca.pem").resolve()
    assert config.tls.certificate == Path("/abs/dev.pem")
    assert config.tls.key == (tmp_path / "k.pem").resolve()
    assert config.api.bind == "[::1]:9000"
    assert parse_bind(config.api.bind) == ("::1", 9000)


def test_defaults() -> None:
    config = build_config()
    assert (config.server.dcap_path, config.server.fsa_stale_seconds) == ("/dcap", None)
    assert config.server.use_server_time is True
    assert (config.tls.minimum_version, config.tls.ciphers) == ("1.2", [])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"server": {"url": "http://x"}}, "server.url: Value error, must be an https:// URL"),
        ({"server": {"dcap_path": "dcap"}}, "server.dcap_path: Value error, must be a path"),
        ({"server": {"fsa_stale_seconds": 0}}, "server.fsa_stale_seconds: Input should be greater"),
        ({"server": {"fsa_stale_seconds": "soon"}}, "server.fsa_stale_seconds: Input should be"),
        ({"tls": {"minimum_version": "1.1"}}, "tls.minimum_version: Input should be '1.2' or"),
        ({"api": {"port": 1}}, "api.port: Extra inputs are not permitted"),
        ({"bogus": {}}, "bogus: Extra inputs are not permitted"),
    ],
)
def test_refusals_name_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        build_config(data)
    assert str(caught.value).startswith(message)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="No such file"):
        read_config_file(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[server\n")
    with pytest.raises(ConfigError, match=r"config .*bad.toml: "):
        read_config_file(bad)
    listed = tmp_path / "list.json"
    listed.write_text("[1]")
    with pytest.raises(ConfigError, match="expected a table"):
        read_config_file(listed)


@pytest.mark.parametrize("text", ["8830", ":8830", "host:", "host:0", "host:http"])
def test_bad_bind(text: str) -> None:
    with pytest.raises(ConfigError, match="expected HOST:PORT"):
        parse_bind(text)
