"""Mutual TLS: the baseline suite, further suites by configuration, TLS 1.3, and one-line
errors for unusable certificates, a refused handshake and an unreachable head-end."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from gridwire.sep2.config import TlsConfig, build_config
from gridwire.sep2.errors import CertificateError, HandshakeRefused, Unreachable
from gridwire.sep2.tls import cipher_string, client_context
from tests.sep2.conftest import ClientFactory
from tests.sep2.headend import Device, HeadEndDouble, lfdi_of
from tests.sep2.pki import Pki
from tests.support.net import free_port


def tls(pki: Pki, **changes: object) -> TlsConfig:
    base: dict[str, object] = {
        "ca": pki.ca,
        "certificate": pki.device_certificate,
        "key": pki.device_key,
    }
    return build_config({"tls": base | changes}).tls


def test_baseline_suite_is_offered_first(pki: Pki) -> None:
    assert cipher_string(tls(pki)) == "ECDHE-ECDSA-AES128-CCM8"
    more = tls(pki, ciphers=["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-CCM8"])
    assert cipher_string(more) == "ECDHE-ECDSA-AES128-CCM8:ECDHE-ECDSA-AES128-GCM-SHA256"
    context = client_context(tls(pki))
    tls12 = [c["name"] for c in context.get_ciphers() if c["protocol"] == "TLSv1.2"]
    assert tls12 == ["ECDHE-ECDSA-AES128-CCM8"]
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2
    assert context.verify_mode == ssl.CERT_REQUIRED


def test_unusable_material_is_named_in_one_line(pki: Pki, tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    locked = tmp_path / "locked.key"
    key = serialization.load_pem_private_key(pki.device_key.read_bytes(), password=None)
    locked.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    cases = [
        (tls(pki, ca=tmp_path / "nope.pem"), r"^tls.ca .*nope.pem: no such file$"),
        (tls(pki, ca=junk), r"^tls.ca .*junk.pem: not a CA certificate"),
        (tls(pki, certificate=junk), r"^tls.certificate .*junk.pem: not a PEM certificate$"),
        (tls(pki, key=junk), r"^tls.key .*junk.pem: not a PEM private key$"),
        (tls(pki, key=pki.device_certificate), r"^tls.key .*: not a PEM private key$"),
        (tls(pki, key=locked), r"^tls.key .*locked.key: the key is encrypted; give it without"),
        (
            tls(pki, key=pki.other_device_key),
            r"^tls.key .*server.key is not the key of tls.certificate .*client.pem$",
        ),
        (tls(pki, ciphers=["NO-SUCH-SUITE"]), r"^tls.ciphers: OpenSSL knows no suite 'NO-SUCH"),
        (build_config({}).tls, r"^tls.ca is not set$"),
    ]
    for settings, message in cases:
        with pytest.raises(CertificateError, match=message) as caught:
            client_context(settings)
        assert "\n" not in str(caught.value) and "None" not in str(caught.value)


async def test_handshake_refused_for_an_untrusted_device(
    headend: HeadEndDouble, make_client: ClientFactory, pki: Pki
) -> None:
    client = make_client(
        tls={"certificate": str(pki.rogue_device_certificate), "key": str(pki.rogue_device_key)}
    )
    with pytest.raises(HandshakeRefused, match=r"refused the TLS handshake") as caught:
        await client.observe_once()
    assert headend.url in str(caught.value) and "\n" not in str(caught.value)
    assert headend.log == []


async def test_head_end_certificate_not_from_our_ca(
    headend: HeadEndDouble, make_client: ClientFactory, pki: Pki
) -> None:
    client = make_client(tls={"ca": str(pki.rogue_ca)})
    with pytest.raises(HandshakeRefused, match=r"does not verify against tls.ca"):
        await client.observe_once()


async def test_unreachable_head_end(pki: Pki, make_client: ClientFactory) -> None:
    client = make_client(url=f"https://127.0.0.1:{free_port()}")
    with pytest.raises(Unreachable, match=r"^head-end https://127.0.0.1:\d+ unreachable: "):
        await client.observe_once()


def _double(pki: Pki, **options: object) -> HeadEndDouble:
    double = HeadEndDouble(pki, **options)  # type: ignore[arg-type]
    double.devices = [Device(lfdi=lfdi_of(pki.device_der))]
    return double


async def test_more_suites_only_by_configuration(pki: Pki, make_client: ClientFactory) -> None:
    # A head-end that speaks TLS 1.2 with AES-GCM only: the baseline offer alone fails, the
    # configured extra suite succeeds.
    with _double(pki, ciphers="ECDHE-ECDSA-AES128-GCM-SHA256") as double:
        plain = make_client(url=double.url)
        with pytest.raises(HandshakeRefused):
            await plain.observe_once()
        extra = make_client(url=double.url, tls={"ciphers": ["ECDHE-ECDSA-AES128-GCM-SHA256"]})
        assert (await extra.observe_once()).source == "server"
        assert {e.cipher for e in double.log} == {"ECDHE-ECDSA-AES128-GCM-SHA256"}


async def test_tls13_head_end(pki: Pki, make_client: ClientFactory) -> None:
    with _double(pki, max_tls=ssl.TLSVersion.TLSv1_3) as double:
        client = make_client(url=double.url, tls={"minimum_version": "1.3"})
        assert (await client.observe_once()).source == "server"
        assert {e.version for e in double.log} == {"TLSv1.3"}


async def test_server_name_is_the_name_checked(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    named = make_client(tls={"server_name": "localhost"})  # the head-end cert names localhost
    assert (await named.observe_once()).source == "server"
    wrong = make_client(tls={"server_name": "head-end.invalid"})
    with pytest.raises(HandshakeRefused, match=r"does not verify against tls\.ca"):
        await wrong.observe_once()
    unchecked = make_client(tls={"server_name": "head-end.invalid", "check_hostname": False})
    assert (await unchecked.observe_once()).source == "server"
