"""Device identity from the device certificate (IEEE 2030.5 section 6.3.4).

The long-form device identifier (LFDI) is the first 160 bits (20 octets) of the SHA-256 hash of
the device certificate in DER form, written as 40 hexadecimal digits. The short-form device
identifier (SFDI) is the first 36 bits of that hash as a decimal number, followed by one check
digit chosen so that the sum of all the digits is a multiple of 10.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from gridwire.sep2.errors import CertificateError

LFDI_OCTETS = 20
SFDI_BITS = 36


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """The identifiers a head-end knows this device by."""

    lfdi: str  # 40 upper-case hexadecimal digits
    sfdi: int

    def matches_lfdi(self, lfdi: str | None) -> bool:
        """Whether ``lfdi`` (as a head-end writes it, in either case) names this device."""
        return lfdi is not None and lfdi.strip().upper() == self.lfdi


def check_digit(number: int) -> int:
    """The digit that, appended to ``number``, makes the sum of all digits a multiple of 10."""
    return (10 - sum(int(d) for d in str(number)) % 10) % 10


def lfdi_from_digest(digest: bytes) -> str:
    """The LFDI of a certificate whose SHA-256 hash is ``digest``."""
    if len(digest) < LFDI_OCTETS:
        raise ValueError(f"a SHA-256 hash has 32 octets, not {len(digest)}")
    return digest[:LFDI_OCTETS].hex().upper()


def sfdi_from_lfdi(lfdi: str) -> int:
    """The SFDI that belongs with ``lfdi``: its first 36 bits (9 hex digits) and a check digit."""
    head = int(lfdi[: SFDI_BITS // 4], 16)
    return head * 10 + check_digit(head)


def identity_from_der(der: bytes) -> DeviceIdentity:
    """The identity of the certificate whose DER octets are ``der``."""
    lfdi = lfdi_from_digest(hashlib.sha256(der).digest())
    return DeviceIdentity(lfdi=lfdi, sfdi=sfdi_from_lfdi(lfdi))


def load_certificate_der(path: Path, setting: str = "tls.certificate") -> bytes:
    """The DER octets of the first certificate in a PEM or DER file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CertificateError(f"{setting} {path}: {exc.strerror or exc}") from None
    try:
        if b"-----BEGIN" in data:
            cert = x509.load_pem_x509_certificate(data)
        else:
            cert = x509.load_der_x509_certificate(data)
    except ValueError:
        raise CertificateError(
            f"{setting} {path}: not a certificate (expected PEM or DER X.509)"
        ) from None
    return cert.public_bytes(Encoding.DER)


def load_identity(path: Path) -> DeviceIdentity:
    """The identity of the device certificate in ``path`` (PEM or DER)."""
    return identity_from_der(load_certificate_der(path))
