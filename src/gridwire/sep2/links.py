"""Links between the head-end's resources, resolved as RFC 3986 (section 5) says.

Every ``href`` a head-end writes is a reference relative to the URL of the resource it came
in: ``/envoy/edev`` replaces the path of ``https://host:8443/envoy/dcap``, ``tm`` replaces its
last segment, ``../tm`` climbs. :func:`resolve` gives the path (with its query) of the target
when it stays on the head-end's origin, which is how links are kept and reported; a link to
another origin stays an absolute URL, which the transport refuses to follow.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import SplitResult, urljoin, urlsplit

DEFAULT_PORTS = {"https": 443, "http": 80}


def origin(parts: SplitResult) -> tuple[str, str, int | None]:
    """Scheme, host and port (the scheme's default port when none is written)."""
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or DEFAULT_PORTS.get(scheme)


def path_of(parts: SplitResult) -> str:
    """The path and query of a URL: what a link on the same origin is kept as."""
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


@lru_cache(maxsize=4096)  # a head-end sends the same links at every poll
def resolve(base: str, href: str) -> str:
    """``href`` resolved against ``base`` (an absolute URL, or a path when no origin is
    known). A path with its query when the target is on ``base``'s origin (or ``base`` has
    none); otherwise the absolute URL; ``href`` unchanged when it is not a URL at all (the
    request for it then says so)."""
    try:
        target = urlsplit(urljoin(base, href))
        base_parts = urlsplit(base)
        if not target.scheme or origin(target) == origin(base_parts):
            return path_of(target)
    except ValueError:  # urllib's refusal of a malformed authority, "[::zz" for one
        return href
    return target._replace(fragment="").geturl()


def prefixed(server_url: str, path: str) -> str:
    """``path`` under the path of ``server_url``: ``/dcap`` under ``https://h/envoy`` is
    ``/envoy/dcap``. The server URL's path is where the head-end's resources start."""
    prefix = urlsplit(server_url).path.rstrip("/")
    return prefix + path
