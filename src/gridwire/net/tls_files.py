"""The files of a TLS end, and the one loader that reads them, for every side of gridwire.

The master (to an outstation: the ``add`` operation's ``tls``, ``--tls-*`` of console and
serve), the simulated outstation (``gridwire sim``'s ``tls`` and ``--tls-*``) and the IEEE
2030.5 client (``tls.*`` and ``--tls-*`` of ``gridwire sep2``) each give three files:

- ``ca``: the CA certificate(s), PEM, that the peer's certificate must chain to;
- ``certificate``: this end's own certificate, PEM;
- ``key``: that certificate's private key, PEM, not encrypted (a program that runs unattended
  has no one to type a pass phrase; OpenSSL would otherwise ask for one on the terminal).

Each side adds what only it needs (:class:`ClientTls`'s ``server_name`` for the master and the
2030.5 client, the outstation's ``allow`` list, the 2030.5 client's cipher suites and TLS
version). Every side loads the files through :func:`load_files` (in :func:`client_context` or
:func:`server_context`): a file that cannot be used is :class:`TlsFileError`, one line naming
the setting and the file and saying why, the same words on every side::

    tls.ca /etc/gw/ca.pem: no such file
    tls.ca /etc/gw/ca.pem: not a CA certificate (NO_CERTIFICATE_OR_CRL_FOUND)
    tls.certificate /etc/gw/me.pem: not a PEM certificate
    tls.key /etc/gw/me.key: the key is encrypted; give it without a password
    tls.key /etc/gw/me.key: not a PEM private key
    tls.key /etc/gw/other.key is not the key of tls.certificate /etc/gw/me.pem

Both contexts require TLS 1.2 or later and verify the peer's certificate against ``ca``
(a server requires the client's certificate; a client checks the server's name unless told
not to).
"""

from __future__ import annotations

import os
import ssl
from pathlib import Path
from typing import Annotated, Any, Final

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from gridwire.errors import ConfigError
from gridwire.net.binding import HOST_LENGTH

PATH_LENGTH: Final = 4096
"""The longest file name a setting takes (PATH_MAX on Linux)."""


def _file_name(value: Any) -> Any:
    """A path given as a ``Path`` (Python callers, files relative to a settings file) is
    kept as its text, so every side holds the same type."""
    return os.fspath(value) if isinstance(value, os.PathLike) else value


FileName = Annotated[str, BeforeValidator(_file_name), Field(max_length=PATH_LENGTH)]


class TlsFiles(BaseModel):
    """The three files of one TLS end (file names on the machine gridwire runs on)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ca: FileName = Field(description="CA certificate(s) the peer's certificate chains to (PEM)")
    certificate: FileName = Field(description="This end's certificate (PEM)")
    key: FileName = Field(description="The certificate's private key (PEM, not encrypted)")


class ClientTls(TlsFiles):
    """A client's TLS: the files, and the name the server's certificate must carry."""

    server_name: str | None = Field(
        default=None,
        max_length=HOST_LENGTH,
        description="Name the server's certificate must carry (default: the host connected to)",
    )


class TlsFileError(ConfigError):
    """A TLS file that cannot be used: one line naming the setting, the file and why."""


class _Encrypted(Exception):
    """Raised by the pass phrase callback: a key that needs one is refused, never asked for."""


def _no_pass_phrase() -> bytes:
    raise _Encrypted


def load_files(context: ssl.SSLContext, tls: TlsFiles) -> None:
    """Load ``tls``'s CA into ``context`` as what peers are verified against, and its
    certificate with its key as what ``context`` presents; TlsFileError otherwise."""
    ca, certificate, key = Path(tls.ca), Path(tls.certificate), Path(tls.key)
    for setting, path in (("tls.ca", ca), ("tls.certificate", certificate), ("tls.key", key)):
        _readable(setting, path)
    try:
        context.load_verify_locations(cafile=str(ca))
    except OSError as exc:  # an SSLError, or a plain OSError from the file system
        reason = getattr(exc, "reason", None) or exc.strerror or exc
        raise TlsFileError(f"tls.ca {ca}: not a CA certificate ({reason})") from None
    try:
        context.load_cert_chain(str(certificate), str(key), password=_no_pass_phrase)
    except _Encrypted:
        raise TlsFileError(
            f"tls.key {key}: the key is encrypted; give it without a password"
        ) from None
    except OSError as exc:
        if getattr(exc, "reason", None) == "KEY_VALUES_MISMATCH":
            raise TlsFileError(
                f"tls.key {key} is not the key of tls.certificate {certificate}"
            ) from None
        raise TlsFileError(_unloadable(certificate, key, exc)) from None


def _readable(setting: str, path: Path) -> None:
    if not path.exists():
        raise TlsFileError(f"{setting} {path}: no such file")
    if not path.is_file():
        raise TlsFileError(f"{setting} {path}: not a file")
    try:
        path.open("rb").close()
    except OSError as exc:
        raise TlsFileError(f"{setting} {path}: cannot be read ({exc.strerror or exc})") from None


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


def client_context(
    tls: TlsFiles,
    *,
    minimum_version: ssl.TLSVersion = ssl.TLSVersion.TLSv1_2,
    check_hostname: bool = True,
) -> ssl.SSLContext:
    """A client context: the server's certificate verified against ``ca`` (and its name
    checked, unless ``check_hostname`` is off), ours presented; TlsFileError otherwise."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = minimum_version
    load_files(context, tls)
    context.check_hostname = check_hostname
    context.verify_mode = ssl.CERT_REQUIRED
    return context


def server_context(tls: TlsFiles) -> ssl.SSLContext:
    """A server context that requires a client certificate from ``ca``, TLS 1.2 or later;
    TlsFileError otherwise."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.verify_mode = ssl.CERT_REQUIRED
    load_files(context, tls)
    return context
