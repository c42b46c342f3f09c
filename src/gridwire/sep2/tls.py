"""The client's TLS context: mutual authentication with the device certificate, TLS 1.2 or
later, the IEEE 2030.5 baseline suite ECDHE-ECDSA-AES128-CCM8 offered first and further TLS 1.2
suites only by configuration (TLS 1.3 suites are OpenSSL's own and always offered with 1.3)."""

from __future__ import annotations

import ssl

from gridwire.net import tls_files
from gridwire.net.tls_files import TlsFileError
from gridwire.sep2.config import BASELINE_CIPHER, TlsConfig
from gridwire.sep2.errors import CertificateError


def cipher_string(tls: TlsConfig) -> str:
    """The OpenSSL cipher list offered for TLS 1.2: the baseline suite, then the configured."""
    suites = [BASELINE_CIPHER, *(s for s in tls.ciphers if s != BASELINE_CIPHER)]
    return ":".join(suites)


def client_context(tls: TlsConfig | None) -> ssl.SSLContext:
    """An ``SSLContext`` for talking to the head-end, or a :class:`CertificateError` naming
    the setting and file at fault (the files are loaded as on every side:
    :func:`gridwire.net.tls_files.load_files`)."""
    if tls is None:
        raise CertificateError("tls.ca is not set")
    minimum = ssl.TLSVersion.TLSv1_3 if tls.minimum_version == "1.3" else ssl.TLSVersion.TLSv1_2
    try:
        context = tls_files.client_context(
            tls, minimum_version=minimum, check_hostname=tls.check_hostname
        )
    except TlsFileError as exc:
        raise CertificateError(str(exc)) from None
    for suite in tls.ciphers:
        try:
            context.set_ciphers(suite)  # one at a time: OpenSSL skips unknown names in a list
        except ssl.SSLError:
            raise CertificateError(f"tls.ciphers: OpenSSL knows no suite {suite!r}") from None
    context.set_ciphers(cipher_string(tls))
    return context
