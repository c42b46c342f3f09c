"""Who may talk to gridwire's HTTP services (the console, the 2030.5 management API): the
names they answer to (``Host``) and the pages that may use their APIs (``Origin``), against
cross-site pages and DNS rebinding.

- ``Host`` (every path): on a loopback bind, the request must name the service as
  ``127.0.0.1``, ``localhost`` or ``[::1]`` with its port. A page on another site whose name
  was made to resolve to 127.0.0.1 (DNS rebinding) still sends its own name, and is
  refused. Beyond loopback a token is required (it stands between a foreign page and the
  API, since such a page never has it) and the machine's names cannot be known, so
  ``Host`` is not restricted there.
- ``Origin`` (``/api``, ``/api/*``, ``/events``): a request that carries one must come from
  the service's own origin (the scheme http or https and the very ``Host`` it was sent
  to). Browsers send ``Origin`` with every cross-site request and with every POST, so the
  console's own page passes and a page elsewhere does not; clients that are not browsers
  send none and are not concerned.

A refusal is 403, its body the service's: on the console the envelope (kind ``request``, id
null), on the 2030.5 API ``{"detail": {"kind": "forbidden", ...}}``; the connection is closed.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gridwire.net.binding import is_loopback

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def allowed_hosts(host: str, port: int) -> frozenset[str] | None:
    """The ``Host`` values a service bound to ``host:port`` answers, lower case; None when
    any is (a bind beyond loopback)."""
    if not is_loopback(host):
        return None
    # The address it is bound to is one of its names too (127.0.0.2, or ::1 written bare),
    # so the address the console prints is always one a browser may use.
    own = f"[{host}]" if ":" in host and not host.startswith("[") else host
    bases = {*LOOPBACK_NAMES, own.lower()}
    names = {f"{name}:{port}" for name in bases}
    if port == 80:
        names |= bases
    return frozenset(names)


def protected(path: str) -> bool:
    """The paths the token and the origin rule cover: the API and the event stream."""
    return path in ("/api", "/events") or path.startswith("/api/")


def _headers(scope: Scope, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", []) if k == name]


def origin_problem(scope: Scope, hosts: frozenset[str] | None) -> str | None:
    """Why this request is refused for its Host or its Origin, or None."""
    given = _headers(scope, b"host")
    host = given[0].strip().lower() if len(given) == 1 else None
    if hosts is not None and host not in hosts:
        shown = repr(given[0]) if len(given) == 1 else f"{len(given)} Host headers"
        return f"{shown} is not a name of this service (use {sorted(hosts)[0]})"
    if not protected(scope["path"]):
        return None
    origins = _headers(scope, b"origin")
    if not origins:
        return None
    origin = origins[0].strip().lower()
    if len(origins) == 1 and host is not None and origin in (f"http://{host}", f"https://{host}"):
        return None
    return f"a request from another origin ({', '.join(origins)}) is refused"


class SameOrigin:
    """ASGI middleware refusing a request whose Host or Origin is not the service's own with
    the response ``refuse`` makes of the reason; ``hosts`` None leaves Host unchecked."""

    def __init__(
        self, app: ASGIApp, hosts: frozenset[str] | None, refuse: Callable[[str], Response]
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = origin_problem(scope, self.hosts)
            if problem is not None:
                await self.refuse(problem)(scope, receive, send)
                return
        await self.app(scope, receive, send)
