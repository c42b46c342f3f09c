"""The certificates the IEEE 2030.5 tests use, made at test time by tests/support/certs.py with
ECDSA P-256 keys: a CA with a head-end (server) certificate for 127.0.0.1 and localhost and a
device (client) certificate, and a second, unrelated CA whose device the head-end refuses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from tests.support.certs import make_pki as make_certificates


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_certificate: Path
    server_key: Path
    device_certificate: Path
    device_key: Path
    device_der: bytes
    # Another certificate of the same CA that is not this device's (the head-end's own, which
    # serves as a second device's identity and as a key that does not match the device's).
    other_device_certificate: Path
    other_device_key: Path
    rogue_ca: Path
    rogue_device_certificate: Path  # signed by a CA the head-end does not trust
    rogue_device_key: Path


def der_of(path: Path) -> bytes:
    return x509.load_pem_x509_certificate(path.read_bytes()).public_bytes(Encoding.DER)


def make_pki(directory: Path) -> Pki:
    main = make_certificates(directory / "head-end", "ec-p256", name="gridwire 2030.5 test")
    rogue = make_certificates(directory / "rogue", "ec-p256", name="rogue")
    return Pki(
        ca=main.ca,
        server_certificate=main.server.certificate,
        server_key=main.server.key,
        device_certificate=main.client.certificate,
        device_key=main.client.key,
        device_der=der_of(main.client.certificate),
        other_device_certificate=main.server.certificate,
        other_device_key=main.server.key,
        rogue_ca=rogue.ca,
        rogue_device_certificate=rogue.client.certificate,
        rogue_device_key=rogue.client.key,
    )
