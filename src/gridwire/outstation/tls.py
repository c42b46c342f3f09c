"""TLS for the outstation's server: a client certificate from the CA is required, TLS 1.2 at
least (:func:`gridwire.net.tls_files.server_context`, the files loaded as on every side), and an
optional allow-list of masters by certificate common name or SHA-256 fingerprint (checked
once the handshake has verified the chain)."""

from __future__ import annotations

import hashlib
import re
import ssl

from gridwire.net.tls_files import TlsFiles

_HEX = re.compile(r"[0-9a-f]{64}")


class TlsSettings(TlsFiles):
    """The outstation's TLS files (every side's: :mod:`gridwire.net.tls_files`) and ``allow``: the
    common names and/or SHA-256 fingerprints (hex, any case, with or without colons) of the
    client certificates let in; empty lets in any certificate the CA signed."""

    allow: tuple[str, ...] = ()


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
