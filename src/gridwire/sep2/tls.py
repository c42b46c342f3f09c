"""The client's TLS context: mutual authentication with the device certificate, TLS 1.2 or
later, the IEEE 2030.5 baseline suite ECDHE-ECDSA-AES128-CCM8 offered first and further TLS 1.2
suites only by configuration (TLS 1.3 suites are OpenSSL's own and always offered with 1.3)."""

from __future__ import annotations

import ssl
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization

from gridwire.sep2.config import BASELINE_CIPHER, TlsConfig
from gridwire.sep2.errors import CertificateError


def _required(path: Path | None, setting: str) -> Path:
    if path is None:
        raise CertificateError(f"{setting} is not set")
    if not path.is_file():
        raise CertificateError(f"{setting} {path}: no such file")
    return path


def _unloadable(certificate: Path, key: Path, exc: OSError) -> str:
    """Which of the two files OpenSSL could not load, and why, in one line: OpenSSL's own
    error often names neither (its reason can be None for a file that is not PEM at all)."""
    try:
        x509.load_pem_x509_certificate(certificate.read_bytes())
    except ValueError:
        return f"tls.certificate {certificate}: not a PEM certificate"
    try:
        serialization.load_pem_private_key(key.read_bytes(), password=None)
    except TypeError:
        return f"tls.key {key}: the key is encrypted; give it without a password"
    except (ValueError, UnsupportedAlgorithm):
        return f"tls.key {key}: not a PEM private key"
    detail = getattr(exc, "reason", None) or exc.strerror or str(exc)
    return f"tls.certificate {certificate} / tls.key {key}: cannot be loaded ({detail})"


def cipher_string(tls: TlsConfig) -> str:
    """The OpenSSL cipher list offered for TLS 1.2: the baseline suite, then the configured."""
    suites = [BASELINE_CIPHER, *(s for s in tls.ciphers if s != BASELINE_CIPHER)]
    return ":".join(suites)


def client_context(tls: TlsConfig) -> ssl.SSLContext:
    """An ``SSLContext`` for talking to the head-end, or a :class:`CertificateError` naming
    the setting and file at fault."""
    ca = _required(tls.ca, "tls.ca")
    certificate = _required(tls.certificate, "tls.certificate")
    key = _required(tls.key, "tls.key")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = (
        ssl.TLSVersion.TLSv1_3 if tls.minimum_version == "1.3" else ssl.TLSVersion.TLSv1_2
    )
    for suite in tls.ciphers:
        try:
            context.set_ciphers(suite)  # one at a time: OpenSSL skips unknown names in a list
        except ssl.SSLError:
            raise CertificateError(f"tls.ciphers: OpenSSL knows no suite {suite!r}") from None
    context.set_ciphers(cipher_string(tls))
    try:
        context.load_verify_locations(cafile=str(ca))
    except ssl.SSLError as exc:
        raise CertificateError(f"tls.ca {ca}: not a CA certificate ({exc.reason})") from None
    try:
        context.load_cert_chain(certfile=str(certificate), keyfile=str(key))
    except OSError as exc:  # an SSLError, or plain OSError for a key behind a password
        if getattr(exc, "reason", None) == "KEY_VALUES_MISMATCH":
            raise CertificateError(
                f"tls.key {key} is not the key of tls.certificate {certificate}"
            ) from None
        raise CertificateError(_unloadable(certificate, key, exc)) from None
    context.check_hostname = tls.check_hostname
    context.verify_mode = ssl.CERT_REQUIRED
    return context
