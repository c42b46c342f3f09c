"""TLS for the outstation's server: a client certificate from the CA is required, TLS 1.2 at
least, and an optional allow-list of masters by certificate common name or SHA-256
fingerprint (checked once the handshake has verified the chain)."""

from __future__ import annotations

import hashlib
import re
import ssl
from dataclasses import dataclass
from pathlib import Path

from gridwire.errors import ConfigError

_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class TlsSettings:
    """``allow`` holds common names and/or SHA-256 fingerprints (hex, any case, with or
    without colons) of the client certificates let in; empty lets in any certificate the CA
    signed."""

    ca: Path
    certificate: Path
    key: Path
    allow: tuple[str, ...] = ()


def server_context(settings: TlsSettings) -> ssl.SSLContext:
    """A server context that requires and verifies a client certificate; ConfigError naming
    the file that cannot be used."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.verify_mode = ssl.CERT_REQUIRED
    try:
        context.load_cert_chain(str(settings.certificate), str(settings.key))
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(
            f"cannot use TLS certificate {settings.certificate} with key {settings.key}: {exc}"
        ) from None
    try:
        context.load_verify_locations(cafile=str(settings.ca))
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot use TLS CA file {settings.ca}: {exc}") from None
    return context


def normalize_fingerprint(text: str) -> str | None:
    """A SHA-256 fingerprint as 64 lower-case hex digits, or None if ``text`` is not one."""
    digits = text.replace(":", "").strip().lower()
    return digits if _HEX.fullmatch(digits) else None


def peer_identity(
    ssl_object: ssl.SSLObject | ssl.SSLSocket | None,
) -> tuple[str | None, str | None]:
    """The verified peer certificate's common name and SHA-256 fingerprint (hex)."""
    if ssl_object is None:
        return None, None
    der = ssl_object.getpeercert(binary_form=True)
    fingerprint = hashlib.sha256(der).hexdigest() if der else None
    common_name = None
    info = ssl_object.getpeercert()
    if info:
        for rdn in info.get("subject", ()):
            for pair in rdn:
                if pair[0] == "commonName":
                    common_name = str(pair[1])
    return common_name, fingerprint


def allowed(allow: tuple[str, ...], common_name: str | None, fingerprint: str | None) -> bool:
    """Whether a peer with this name and fingerprint is on the allow-list (any peer when the
    list is empty)."""
    if not allow:
        return True
    for entry in allow:
        wanted = normalize_fingerprint(entry)
        if wanted is not None and wanted == fingerprint:
            return True
        if common_name is not None and entry == common_name:
            return True
    return False
