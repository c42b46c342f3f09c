"""The cluster's connection settings: a NATS server off loopback is refused without
credentials (the cluster carries controls), credentials and TLS are passed to nats-py, and
a process refuses to start rather than run unauthenticated."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridwire.cli import main
from gridwire.cluster.settings import ClusterSettings
from gridwire.cluster.store import connect, name_of_key, open_buckets, outstation_key
from gridwire.errors import ConfigError
from tests.support.certs import make_pki
from tests.support.nats import nats_server


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


async def test_tls_and_credentials_reach_a_real_nats_server(tmp_path: Path) -> None:
    """nats-server requiring mutual TLS and a user/password: our settings connect and open
    the buckets; a wrong password or no client certificate is refused at start."""
    pki = make_pki(tmp_path / "pki")
    tls = [
        "--tls",
        "--tlscert",
        str(pki.server.certificate),
        "--tlskey",
        str(pki.server.key),
        "--tlsverify",
        "--tlscacert",
        str(pki.ca),
        "--user",
        "gw",
        "--pass",
        "s3cret",
    ]
    with nats_server(extra=tls) as server:
        url = f"tls://127.0.0.1:{server.port}"
        given = {
            "tls_ca": pki.ca,
            "tls_certificate": pki.client.certificate,
            "tls_key": pki.client.key,
        }
        settings = ClusterSettings.from_url(url, user="gw", password="s3cret", **given)
        nc = await connect(settings, "test")
        try:
            buckets = await open_buckets(nc, settings)
            assert buckets.lease == settings.lease
        finally:
            await nc.close()
        for wrong in (
            ClusterSettings.from_url(url, user="gw", password="wrong", **given),
            ClusterSettings.from_url(url, user="gw", password="s3cret", tls_ca=pki.ca),
        ):
            with pytest.raises(ConfigError, match="cannot connect to NATS"):
                await connect(wrong, "test", start_wait=1.0)
