"""LFDI and SFDI (IEEE 2030.5 section 6.3.4)."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from gridwire.sep2.errors import CertificateError
from gridwire.sep2.identity import (
    check_digit,
    identity_from_der,
    lfdi_from_digest,
    load_identity,
    sfdi_from_lfdi,
)
from tests.sep2.pki import Pki

# The standard's worked example: a certificate whose SHA-256 hash begins
# 3E4F45AB31EDFE5B67E343E5E4562E31984E23E5 has that LFDI (the first 160 bits, 40 hex digits)
# and the SFDI 167261211391.
STANDARD_LFDI = "3E4F45AB31EDFE5B67E343E5E4562E31984E23E5"
STANDARD_SFDI = 167261211391


def test_sfdi_of_the_standards_example() -> None:
    # By hand: the first 36 bits are the first 9 hex digits, 0x3E4F45AB3 = 16726121139; its
    # digits sum to 1+6+7+2+6+1+2+1+1+3+9 = 39, so the check digit is 1 (39 + 1 = 40).
    assert int("3E4F45AB3", 16) == 16726121139
    assert check_digit(16726121139) == 1
    assert sfdi_from_lfdi(STANDARD_LFDI) == STANDARD_SFDI
    assert sfdi_from_lfdi(STANDARD_LFDI.lower()) == STANDARD_SFDI


def test_lfdi_is_the_first_20_octets_of_the_hash() -> None:
    digest = bytes.fromhex(STANDARD_LFDI) + bytes(range(12))
    assert lfdi_from_digest(digest) == STANDARD_LFDI


@pytest.mark.parametrize(
    ("number", "digit"),
    [(0, 0), (1, 9), (19, 0), (123, 4), (99999, 5)],  # 1+2+3=6 -> 4; 9*5=45 -> 5
)
def test_check_digit_makes_the_digit_sum_a_multiple_of_ten(number: int, digit: int) -> None:
    assert check_digit(number) == digit
    assert sum(map(int, f"{number}{digit}")) % 10 == 0


def test_identity_of_a_certificate_matches_openssl(pki: Pki, tmp_path: Path) -> None:
    # openssl converts the PEM to DER and hashes it: an independent route to the same octets.
    der_path = tmp_path / "device.der"
    subprocess.run(
        [
            "openssl",
            "x509",
            "-in",
            str(pki.device_certificate),
            "-outform",
            "DER",
            "-out",
            str(der_path),
        ],
        check=True,
        timeout=30,
    )
    out = subprocess.run(
        ["openssl", "dgst", "-sha256", "-r", str(der_path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    digest_hex = out.split()[0]
    identity = load_identity(pki.device_certificate)
    assert identity.lfdi == digest_hex[:40].upper()
    head = int(digest_hex[:9], 16)
    assert identity.sfdi // 10 == head
    assert sum(map(int, str(identity.sfdi))) % 10 == 0
    assert load_identity(der_path) == identity
    assert identity_from_der(der_path.read_bytes()) == identity
    assert identity.lfdi == hashlib.sha256(pki.device_der).hexdigest()[:40].upper()


def test_matches_lfdi_in_either_case() -> None:
    identity = identity_from_der(b"x")
    assert identity.matches_lfdi(identity.lfdi.lower())
    assert not identity.matches_lfdi(None)
    assert not identity.matches_lfdi("0" * 40)


def test_unusable_certificate_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(CertificateError, match=r"tls.certificate .*missing.pem: No such file"):
        load_identity(tmp_path / "missing.pem")
    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
    with pytest.raises(CertificateError, match="not a certificate"):
        load_identity(junk)
