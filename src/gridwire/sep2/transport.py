"""HTTPS requests to the head-end: ``GET`` of ``application/sep+xml`` resources over one
kept-alive mutual-TLS connection, with the moment each answer was received on both clocks.

Each request has one deadline for all of it (connection, TLS handshake, headers and body:
``timeout`` seconds), so a head-end that sends an octet now and then cannot hold a poll for
ever. Failures become one-line :class:`HeadEndError` subclasses that name the cause and the
URL requested; nothing else escapes, whatever the network does.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from gridwire.net.sockets import connect_reason
from gridwire.process.clock import SYSTEM_CLOCK, Clock
from gridwire.sep2.errors import (
    HandshakeRefused,
    HeadEndError,
    HttpStatusError,
    TimedOut,
    Unreachable,
)
from gridwire.sep2.limits import MAX_BODY
from gridwire.sep2.links import origin
from gridwire.sep2.parsing import MEDIA_TYPE

SHOWN_URL = 200  # longest URL quoted in a message, in characters

# TLS alerts by which a head-end says it will not have this device's certificate.
CERTIFICATE_REJECTED = {
    "SSLV3_ALERT_BAD_CERTIFICATE",
    "SSLV3_ALERT_CERTIFICATE_EXPIRED",
    "SSLV3_ALERT_CERTIFICATE_REVOKED",
    "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
    "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE",
    "TLSV13_ALERT_CERTIFICATE_REQUIRED",
    "TLSV1_ALERT_ACCESS_DENIED",
    "TLSV1_ALERT_UNKNOWN_CA",
}


@dataclass(frozen=True, slots=True)
class Fetched:
    """An answer of the head-end and when it was received."""

    href: str  # as asked for
    url: str  # the URL requested
    status: int
    body: bytes
    wall: float
    monotonic: float
    location: str | None = None  # a 201's Location (what a POST created)

    @property
    def empty(self) -> bool:
        """404, 410 or 204: the resource is not there."""
        return self.status in (204, 404, 410)

    def require_ok(self) -> bytes:
        if self.status != 200:
            raise HttpStatusError(f"GET {self.url} answered HTTP {self.status}", self.status)
        return self.body


def shown(url: object) -> str:
    text = str(url)
    return text if len(text) <= SHOWN_URL else text[:SHOWN_URL] + "..."


class _Progress:
    """How far a request got, from httpcore's trace events, to say where it stopped."""

    def __init__(self) -> None:
        self.stage = ""
        self.body_octets: int | None = None  # None until the headers are in

    async def trace(self, event: str, info: Mapping[str, Any]) -> None:
        if event.endswith(".started"):
            self.stage = event.rsplit(".", 2)[-2]

    def timed_out(self, seconds: float) -> str:
        limit = f"within {seconds:g} s"
        if self.stage == "connect_tcp":
            return f"no connection {limit}"
        if self.stage == "start_tls":
            return f"no TLS handshake {limit}"
        if self.body_octets is None:
            return f"no complete answer {limit}"
        return f"answer not complete {limit} ({self.body_octets} octets of its body came)"


def _causes(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _tls_failure(item: ssl.SSLError, server: str, stage: str) -> tuple[type[HeadEndError], str]:
    if isinstance(item, ssl.SSLCertVerificationError):
        return HandshakeRefused, (
            f"TLS handshake with head-end {server} failed: its certificate does not "
            f"verify against tls.ca ({item.verify_message})"
        )
    reason = (item.reason or str(item)).lower().replace("_", " ")
    if item.reason in CERTIFICATE_REJECTED:
        # With TLS 1.3 this alert comes after our side of the handshake, at the first read.
        return HandshakeRefused, (
            f"head-end {server} refused the TLS handshake: it rejected this device's "
            f"certificate ({reason})"
        )
    if stage == "start_tls":
        return HandshakeRefused, f"head-end {server} refused the TLS handshake: {reason}"
    return Unreachable, f"head-end {server}: TLS failed ({reason})"


def _describe(
    exc: BaseException, server: str, progress: _Progress, timeout: float
) -> tuple[type[HeadEndError], str]:
    """The kind of failure and a one-line account of it, from an error's causes."""
    seen = _causes(exc)
    if any(isinstance(i, (httpx.TimeoutException, TimeoutError)) for i in seen):
        return TimedOut, f"head-end {server} too slow: {progress.timed_out(timeout)}"
    for item in seen:
        # A handshake waiting for octets raises SSLWantReadError inside; that is no refusal.
        if isinstance(item, ssl.SSLError) and not isinstance(
            item, (ssl.SSLWantReadError, ssl.SSLWantWriteError)
        ):
            return _tls_failure(item, server, progress.stage)
    reason = str(exc) or type(exc).__name__
    for item in seen:
        if isinstance(item, OSError) and item.errno is not None:
            reason = connect_reason(item)
            break
        if isinstance(item, httpx.RemoteProtocolError):
            reason = "it closed the connection without answering"
            break
    return Unreachable, f"head-end {server} unreachable: {reason}"


class HeadEnd:
    """The head-end at ``server_url``. Paths asked for are taken on its origin (scheme, host
    and port); ``transport`` replaces the network (tests, benchmarks)."""

    def __init__(
        self,
        server_url: str,
        ssl_context: ssl.SSLContext | None,
        *,
        timeout: float = 10.0,
        server_name: str | None = None,
        clock: Clock = SYSTEM_CLOCK,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.server_url = server_url.rstrip("/")
        parts = urlsplit(self.server_url)
        self.origin = httpx.URL(f"{parts.scheme}://{parts.netloc}/")
        self._origin_key = origin(parts)
        self.timeout = timeout
        self.clock = clock
        self.requests = 0
        self._extensions = {"sni_hostname": server_name} if server_name else {}
        self._client = httpx.AsyncClient(
            verify=ssl_context if ssl_context is not None else True,
            timeout=timeout,
            headers={"Accept": MEDIA_TYPE},
            transport=transport,
            follow_redirects=False,
            trust_env=False,
        )

    def locate(self, href: str, params: Mapping[str, int | str] | None = None) -> httpx.URL:
        """The URL of ``href`` (a path, or an absolute URL on the head-end's origin)."""
        try:
            url = self.origin.join(href)
            same = origin(urlsplit(str(url))) == self._origin_key
        except (httpx.InvalidURL, ValueError) as exc:
            raise HeadEndError(f"GET {shown(repr(href))}: not a usable URL ({exc})") from None
        if not same:
            raise HeadEndError(
                f"GET {shown(repr(href))}: not a usable URL (not on head-end {self.server_url})"
            )
        return url.copy_merge_params(dict(params)) if params else url

    async def get(self, href: str, params: Mapping[str, int | str] | None = None) -> Fetched:
        """``GET href``; any status is returned, a failure to get one raises."""
        url = self.locate(href, params)
        self.requests += 1
        progress = _Progress()
        try:
            async with asyncio.timeout(self.timeout):
                return await self._fetch(href, url, progress)
        except (httpx.HTTPError, OSError) as exc:  # ssl.SSLError and TimeoutError among them
            kind, message = _describe(exc, self.server_url, progress, self.timeout)
            raise kind(f"{message} (GET {shown(url)})") from None

    async def _fetch(self, href: str, url: httpx.URL, progress: _Progress) -> Fetched:
        extensions = {**self._extensions, "trace": progress.trace}
        async with self._client.stream("GET", url, extensions=extensions) as response:
            progress.body_octets = 0
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                progress.body_octets = len(body)
                if len(body) > MAX_BODY:
                    raise HttpStatusError(
                        f"GET {shown(url)}: answer is over {MAX_BODY} octets",
                        response.status_code,
                    )
            wall, monotonic = self.clock.wall(), self.clock.monotonic()
            return Fetched(href, str(url), response.status_code, bytes(body), wall, monotonic)

    async def send(self, method: str, href: str, body: bytes) -> Fetched:
        """``POST`` or ``PUT`` of an ``application/sep+xml`` body to ``href``; any status is
        returned (the Location of a 201 is not followed), a failure to get one raises."""
        url = self.locate(href)
        self.requests += 1
        headers = {"Content-Type": MEDIA_TYPE}
        try:
            async with asyncio.timeout(self.timeout):
                response = await self._client.request(
                    method, url, content=body, headers=headers, extensions=self._extensions
                )
        except (httpx.HTTPError, OSError) as exc:
            kind, message = _describe(exc, self.server_url, _Progress(), self.timeout)
            raise kind(f"{message} ({method} {shown(url)})") from None
        wall, monotonic = self.clock.wall(), self.clock.monotonic()
        location = response.headers.get("location")
        return Fetched(
            href, str(url), response.status_code, response.content, wall, monotonic, location
        )

    async def aclose(self) -> None:
        await self._client.aclose()
