"""HTTPS requests to the head-end: ``GET`` of ``application/sep+xml`` resources over one
kept-alive mutual-TLS connection, with the moment each answer was received on both clocks.
Failures become one-line :class:`HeadEndError` subclasses that say what happened."""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from gridwire.sep2.clock import SYSTEM_CLOCK, Clock
from gridwire.sep2.errors import HandshakeRefused, HeadEndError, HttpStatusError, Unreachable
from gridwire.sep2.parsing import MAX_BODY, MEDIA_TYPE


@dataclass(frozen=True, slots=True)
class Fetched:
    """An answer of the head-end and when it was received."""

    href: str
    status: int
    body: bytes
    wall: float
    monotonic: float

    @property
    def empty(self) -> bool:
        """404, 410 or 204: the resource is not there."""
        return self.status in (204, 404, 410)

    def require_ok(self) -> bytes:
        if self.status != 200:
            raise HttpStatusError(f"GET {self.href} answered HTTP {self.status}", self.status)
        return self.body


def _describe(exc: BaseException, base_url: str) -> tuple[type[HeadEndError], str]:
    """The kind of failure and a one-line account of it, from an httpx error's causes."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    for item in seen:
        if isinstance(item, ssl.SSLCertVerificationError):
            return HandshakeRefused, (
                f"TLS handshake with head-end {base_url} failed: its certificate does not "
                f"verify against tls.ca ({item.verify_message})"
            )
        if isinstance(item, ssl.SSLError):
            reason = (item.reason or str(item)).lower().replace("_", " ")
            return HandshakeRefused, f"head-end {base_url} refused the TLS handshake: {reason}"
    reason = str(exc) or type(exc).__name__
    for item in seen:
        if isinstance(item, ConnectionRefusedError):
            reason = "connection refused"
            break
        if isinstance(item, (httpx.TimeoutException, TimeoutError)):
            reason = "no answer in time"
            break
        if isinstance(item, OSError) and item.strerror:
            reason = item.strerror
            break
        if isinstance(item, httpx.RemoteProtocolError):
            reason = "it closed the connection without answering"
            break
    return Unreachable, f"head-end {base_url} unreachable: {reason}"


class HeadEnd:
    """The head-end at ``base_url``. ``transport`` replaces the network (tests, benchmarks)."""

    def __init__(
        self,
        base_url: str,
        ssl_context: ssl.SSLContext | None,
        *,
        timeout: float = 10.0,
        server_name: str | None = None,
        clock: Clock = SYSTEM_CLOCK,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.clock = clock
        self.requests = 0
        self._extensions = {"sni_hostname": server_name} if server_name else {}
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            verify=ssl_context if ssl_context is not None else True,
            timeout=timeout,
            headers={"Accept": MEDIA_TYPE},
            transport=transport,
            follow_redirects=False,
            trust_env=False,
        )

    async def get(self, href: str, params: Mapping[str, int | str] | None = None) -> Fetched:
        """``GET href``; any status is returned, a failure to get one raises."""
        self.requests += 1
        try:
            async with self._client.stream(
                "GET", href, params=params, extensions=self._extensions
            ) as response:
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_BODY:
                        raise HttpStatusError(
                            f"GET {href}: answer is over {MAX_BODY} octets", response.status_code
                        )
                wall, monotonic = self.clock.wall(), self.clock.monotonic()
                return Fetched(href, response.status_code, bytes(body), wall, monotonic)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError) as exc:
            raise HeadEndError(f"GET {href[:200]!r}: not a usable URL ({exc})") from None
        except httpx.HTTPError as exc:
            kind, message = _describe(exc, self.base_url)
            raise kind(f"{message} (GET {href})") from None

    async def aclose(self) -> None:
        await self._client.aclose()
