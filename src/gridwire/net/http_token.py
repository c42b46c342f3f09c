"""The one token guard of gridwire's HTTP services (the console and the 2030.5 management
API): what counts as carrying the token, and the verdict each service turns into its answer.

A request carries the token when one of its ``Authorization: Bearer TOKEN`` headers (the
scheme in any case) or one of its ``token`` query parameters (for clients that cannot set a
header, such as a browser's event stream) equals it. Every candidate is compared whole in
constant time, so the time taken says nothing of where a wrong one differs. The verdict is
:data:`MISSING` when the request carries no candidate, :data:`WRONG` when none matched, None
when one did. Each service answers a verdict in its own published form (401 with
``WWW-Authenticate: Bearer``): the console with its envelope (:mod:`gridwire.transports.http_app`),
the 2030.5 API with ``{"detail": {"kind": "unauthorized", ...}}`` (:mod:`gridwire.sep2.api`).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Final, Literal
from urllib.parse import parse_qs

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

Verdict = Literal["missing", "wrong"]
MISSING: Final[Verdict] = "missing"
WRONG: Final[Verdict] = "wrong"


def candidates(scope: Scope) -> list[bytes]:
    """The tokens a request offers: its Bearer credentials, then its ``token`` parameters."""
    given: list[bytes] = []
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, credential = value.partition(b" ")
            if scheme.lower() == b"bearer":
                given.append(credential.strip())
    query = scope.get("query_string", b"").decode("latin-1")
    given += [v.encode() for v in parse_qs(query, keep_blank_values=True).get("token", [])]
    return given


class TokenGuard:
    """The verdict on a request for one token."""

    def __init__(self, token: str) -> None:
        self.token = token.encode()

    def verdict(self, scope: Scope) -> Verdict | None:
        """None when the request carries the token; else :data:`MISSING` or :data:`WRONG`."""
        given = candidates(scope)
        matched = False
        for candidate in given:  # each compared whole: the time says nothing of where it differs
            matched |= hmac.compare_digest(candidate, self.token)
        if matched:
            return None
        return WRONG if given else MISSING


class TokenRequired:
    """ASGI middleware: a request to a path ``covers`` names that does not carry ``token``
    gets the response ``refuse`` makes of the verdict; ``token`` None lets every one by."""

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        covers: Callable[[str], bool],
        refuse: Callable[[Verdict], Response],
    ) -> None:
        self.app = app
        self.guard = TokenGuard(token) if token is not None else None
        self.covers = covers
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.guard is not None and self.covers(scope["path"]):
            verdict = self.guard.verdict(scope)
            if verdict is not None:
                await self.refuse(verdict)(scope, receive, send)
                return
        await self.app(scope, receive, send)
