"""Certificates made at test time: a CA, a server and a client, as PEM files.

The server certificate names ``localhost`` and ``127.0.0.1`` (DNS and IP SANs); the client
certificate carries clientAuth. yadnp3's TLS (OpenSSL inside opendnp3) accepts both key kinds
made here, RSA 2048 and ECDSA P-256, on either side (tests/peers/test_harness.py proves it).
Nothing here is ever written outside the directory a test hands in.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

KeyKind = Literal["rsa2048", "ec-p256"]
PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey


@dataclass(frozen=True, slots=True)
class Identity:
    """One certificate and its private key, as PEM files."""

    certificate: Path
    key: Path


@dataclass(frozen=True, slots=True)
class Pki:
    """A CA and the server and client identities it signed."""

    ca: Path
    ca_key: Path
    server: Identity
    client: Identity
    kind: KeyKind


def _new_key(kind: KeyKind) -> PrivateKey:
    if kind == "rsa2048":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(key: PrivateKey, path: Path) -> None:
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    path.write_bytes(pem)
    path.chmod(0o600)


def _write_certificate(cert: x509.Certificate, path: Path) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "gridwire tests"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _builder(subject: str, issuer: x509.Name, public_key: PublicKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
    )


def _key_usage(signing: bool, key_encipherment: bool, certificate_signing: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=signing,
        content_commitment=False,
        key_encipherment=key_encipherment,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=certificate_signing,
        crl_sign=certificate_signing,
        encipher_only=False,
        decipher_only=False,
    )


def _issue(
    directory: Path,
    stem: str,
    common_name: str,
    usage: x509.ObjectIdentifier,
    ca_cert: x509.Certificate,
    ca_key: PrivateKey,
    kind: KeyKind,
    server_names: bool,
) -> Identity:
    key = _new_key(kind)
    builder = (
        _builder(common_name, ca_cert.subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        # RSA key exchange needs keyEncipherment; ECDSA signs only.
        .add_extension(_key_usage(True, kind == "rsa2048", False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
    )
    if server_names:
        names: list[x509.GeneralName] = [
            x509.DNSName("localhost"),
            x509.IPAddress(ipaddress.IPv4Address("127.0.0.1")),
        ]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())
    identity = Identity(directory / f"{stem}.pem", directory / f"{stem}.key")
    _write_certificate(cert, identity.certificate)
    _write_key(key, identity.key)
    return identity


def make_pki(directory: Path, kind: KeyKind = "rsa2048", name: str = "gridwire test") -> Pki:
    """Write a CA and a server and a client certificate (with keys) into ``directory``.

    ``kind`` picks the key of every certificate: ``rsa2048`` or ``ec-p256``. Two calls with
    different directories make two unrelated PKIs, which is how a test gets a certificate
    the other side must refuse.
    """
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _new_key(kind)
    ca_name = _name(f"{name} CA")
    ca_cert = (
        _builder(f"{name} CA", ca_name, ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(True, False, True), critical=True)
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    ca_path, ca_key_path = directory / "ca.pem", directory / "ca.key"
    _write_certificate(ca_cert, ca_path)
    _write_key(ca_key, ca_key_path)
    server = _issue(
        directory,
        "server",
        "localhost",
        ExtendedKeyUsageOID.SERVER_AUTH,
        ca_cert,
        ca_key,
        kind,
        server_names=True,
    )
    client = _issue(
        directory,
        "client",
        f"{name} master",
        ExtendedKeyUsageOID.CLIENT_AUTH,
        ca_cert,
        ca_key,
        kind,
        server_names=False,
    )
    return Pki(ca=ca_path, ca_key=ca_key_path, server=server, client=client, kind=kind)
