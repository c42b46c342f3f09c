"""Errors of the IEEE 2030.5 client. Each message is one line that names what failed and where,
so the command line can print it as it stands."""

from __future__ import annotations

from gridwire.errors import GridwireError
from gridwire.net.tls_files import TlsFileError


class Sep2Error(GridwireError):
    """Base of the IEEE 2030.5 client's errors."""


class ResourceError(Sep2Error):
    """A body that is not the resource it was meant to be: not XML, a DTD or entity, a missing
    or malformed field. Parsers raise this and nothing else, whatever octets they are given."""


class CertificateError(Sep2Error, TlsFileError):
    """TLS material that cannot be used: a missing or unreadable file, something that is not a
    certificate or key, a key that does not match its certificate (the words of every side:
    :class:`gridwire.net.tls_files.TlsFileError`), an unusable cipher list."""


class HeadEndError(Sep2Error):
    """A request to the head-end that did not give a usable answer."""


class Unreachable(HeadEndError):
    """No connection could be made to the head-end, or it stopped answering."""


class TimedOut(Unreachable):
    """The head-end did not answer in full within the request's deadline (``timeout_seconds``
    for all of it: connection, handshake, headers and body)."""


class HandshakeRefused(HeadEndError):
    """The TLS handshake failed: the head-end refused our certificate, or we refused its."""


class HttpStatusError(HeadEndError):
    """The head-end answered with a status that is not the resource."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class DiscoveryError(HeadEndError):
    """The head-end's resources do not lead where they must (for example no DeviceCapability)."""


class NotConnected(Sep2Error):
    """No client service is available to answer; the message says why."""
