"""The cluster's connection settings: a NATS server off loopback is refused without
credentials (the cluster carries controls), credentials and TLS are passed to nats-py, and
a process refuses to start rather than run unauthenticated."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridwire.cli import main
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import name_of_key, outstation_key
from gridwire.errors import ConfigError


@pytest.mark.parametrize(
    "url",
    ["nats://192.0.2.10:4222", "tls://nats.example.org:4222", "nats://127.0.0.1:4222,10.0.0.2"],
)
def test_off_loopback_without_credentials_is_refused(url: str) -> None:
    with pytest.raises(ConfigError, match="off loopback needs credentials"):
        ClusterSettings.from_url(url)


@pytest.mark.parametrize(
    ("url", "given"),
    [
        ("nats://alice:pw@192.0.2.10:4222", {}),
        ("nats://s3cret@192.0.2.10:4222", {}),
        ("nats://192.0.2.10:4222", {"token": "s3cret"}),
        ("nats://192.0.2.10:4222", {"user": "alice", "password": "pw"}),
        ("nats://127.0.0.1:4222", {}),
        ("nats://localhost:4222", {}),
    ],
)
def test_credentials_or_loopback_are_accepted(url: str, given: dict[str, str]) -> None:
    options = ClusterSettings.from_url(url, **given).connect_options()
    assert options["servers"] == url.split(",")
    for field in ("token", "user", "password"):
        assert options.get(field) == given.get(field)


def test_bad_settings_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="go together"):
        ClusterSettings.from_url("nats://127.0.0.1:4222", user="alice")
    with pytest.raises(ConfigError, match="scheme"):
        ClusterSettings.from_url("http://127.0.0.1:4222")
    with pytest.raises(ConfigError, match="not found"):
        ClusterSettings.from_url("nats://127.0.0.1:4222", nkeys_seed=tmp_path / "none.nk")


def test_tls_context_from_a_tls_url() -> None:
    settings = ClusterSettings.from_url("tls://127.0.0.1:4222")
    assert settings.connect_options()["tls"] is not None


@pytest.mark.parametrize("name", ["feeder-1", "a_b", "feeder 1", "ünit/7", "x.y"])
def test_outstation_keys_are_nats_keys_and_reversible(name: str) -> None:
    key = outstation_key(name)
    assert all(c.isalnum() or c in "-_." for c in key)
    assert key.count(".") == 1
    assert name_of_key(key) == name


@pytest.mark.parametrize("command", ["worker", "console", "serve"])
def test_a_process_refuses_to_start_unauthenticated_off_loopback(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--cluster", "nats://192.0.2.10:4222"]) == 2
    assert "off loopback needs credentials" in capsys.readouterr().err
