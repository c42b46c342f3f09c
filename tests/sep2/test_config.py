"""Settings: a TOML or JSON file holding every setting, flags overriding it key by key, and
refusals that name the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.cli import build_parser
from gridwire.cli.sep2 import load_settings
from gridwire.errors import ConfigError
from gridwire.sep2.config import build_config, read_config_file
from gridwire.sep2.links import prefixed


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
    assert config.tls is not None
    assert config.tls.ca == str((tmp_path / "certs" / "ca.pem").resolve())
    assert config.tls.certificate == "/abs/dev.pem"
    assert config.tls.key == str((tmp_path / "k.pem").resolve())
    assert config.api.bind == "[::1]:9000"
    assert config.api.address() == ("::1", 9000)


def test_defaults() -> None:
    config = build_config()
    assert (config.server.dcap_path, config.server.fsa_stale_seconds) == ("/dcap", None)
    assert config.server.use_server_time is True
    assert config.tls is None  # the three files come together, or not at all
    tls = build_config({"tls": {"ca": "a", "certificate": "c", "key": "k"}}).tls
    assert tls is not None
    assert (tls.minimum_version, tls.ciphers, tls.server_name) == ("1.2", [], None)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"server": {"url": "http://x"}}, "server.url: Value error, must be an https:// URL"),
        ({"server": {"url": "https://x/envoy?a=1"}}, "server.url: Value error, must be https://"),
        ({"server": {"url": "https://x/envoy#top"}}, "server.url: Value error, must be https://"),
        ({"server": {"url": "https://x:99999"}}, "server.url: Value error, is not a URL"),
        ({"server": {"dcap_path": "dcap"}}, "server.dcap_path: Value error, must be a path"),
        ({"api": {"token": ""}}, "api.token: String should match pattern"),
        ({"api": {"token": "two words"}}, "api.token: String should match pattern"),
        ({"server": {"fsa_stale_seconds": 0}}, "server.fsa_stale_seconds: Input should be greater"),
        ({"server": {"fsa_stale_seconds": "soon"}}, "server.fsa_stale_seconds: Input should be"),
        (
            {"tls": {"ca": "a", "certificate": "c", "key": "k", "minimum_version": "1.1"}},
            "tls.minimum_version: Input should be '1.2' or",
        ),
        ({"tls": {"ciphers": []}}, "tls.ca is not set"),
        ({"tls": {"ca": "a", "key": "k"}}, "tls.certificate is not set"),
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


@pytest.mark.parametrize("text", ["8830", "::1:8830", "host:", "host:http", "host:65536"])
def test_bad_bind(text: str) -> None:
    # Every program's rule (tests/test_binding.py): HOST alone takes port 8830, :PORT is on
    # 127.0.0.1, and port 0 takes a free one.
    with pytest.raises(ConfigError, match=r"^api\.bind .*; expected HOST:PORT"):
        build_config({"api": {"bind": text}})


def test_every_flag_overrides_its_key_and_the_file_holds_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "sep2.toml"
    path.write_text(
        '[server]\nurl = "https://file:1"\ndcap_path = "/file/dcap"\nfsa_stale_seconds = 1.5\n'
        "use_server_time = false\npage_size = 7\n\n"
        '[tls]\nca = "file-ca.pem"\ncertificate = "file-dev.pem"\nkey = "file-dev.key"\n'
        'ciphers = ["ECDHE-ECDSA-AES128-GCM-SHA256"]\nminimum_version = "1.3"\n\n'
        '[api]\nbind = "127.0.0.1:1"\n'
    )
    only_file = load_settings(build_parser().parse_args(["sep2", "--config", str(path)]))
    assert only_file.server.url == "https://file:1"
    assert (only_file.server.dcap_path, only_file.server.fsa_stale_seconds) == ("/file/dcap", 1.5)
    assert only_file.tls is not None
    assert only_file.tls.ca == str((tmp_path / "file-ca.pem").resolve())
    assert only_file.api.bind == "127.0.0.1:1"
    args = build_parser().parse_args(
        [
            "sep2", "--config", str(path), "--server", "https://flag:2",
            "--tls-ca", "/f/ca.pem", "--tls-certificate", "/f/dev.pem", "--tls-key", "/f/dev.key",
            "--api-bind", "127.0.0.1:2", "--dcap-path", "/flag/dcap",
            "--fsa-stale-seconds", "4000",
        ]
    )  # fmt: skip
    config = load_settings(args)
    assert config.server.url == "https://flag:2"
    assert (config.server.dcap_path, config.server.fsa_stale_seconds) == ("/flag/dcap", 4000.0)
    assert config.tls is not None
    assert (config.tls.ca, config.tls.certificate, config.tls.key) == (
        "/f/ca.pem",
        "/f/dev.pem",
        "/f/dev.key",
    )
    assert config.api.bind == "127.0.0.1:2"
    # Keys with no flag keep the file's values.
    assert (config.server.use_server_time, config.server.page_size) == (False, 7)
    assert (config.tls.ciphers, config.tls.minimum_version) == (
        ["ECDHE-ECDSA-AES128-GCM-SHA256"],
        "1.3",
    )


def test_dcap_path_is_taken_under_the_server_urls_path() -> None:
    for url, expected in [
        ("https://h:8443", "/dcap"),
        ("https://h:8443/", "/dcap"),
        ("https://h:8443/envoy", "/envoy/dcap"),
        ("https://h:8443/envoy/", "/envoy/dcap"),
        ("https://h/a/b", "/a/b/dcap"),
    ]:
        server = build_config({"server": {"url": url}}).server
        assert server.url is not None and prefixed(server.url, server.dcap_path) == expected
