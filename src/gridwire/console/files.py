"""Serving the console's static files: read once from the package, each answered with its
content type, an ETag and ``Cache-Control: no-cache`` (a browser keeps its copy and asks
again each time, so a new release is seen at once and an unchanged file costs a 304), and
the headers that hold the page to its own origin: a Content-Security-Policy allowing only
``'self'``, ``nosniff``, and no referrer (the first address may carry ``?token=``).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

PREFIX = "/console/"
"""Where the page's modules, style sheet and icon are served."""

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


@dataclass(frozen=True, slots=True)
class StaticFile:
    body: bytes
    content_type: str
    etag: str


class ConsoleFiles:
    """The files under ``static/`` by their path there (``main.js``, ``tabs/points.js``)."""

    def __init__(self, root: Traversable | None = None) -> None:
        root = root if root is not None else resources.files("gridwire.console") / "static"
        self.files: dict[str, StaticFile] = {}
        self._load(root, "")

    def _load(self, folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            path = prefix + entry.name
            if entry.is_dir():
                self._load(entry, path + "/")
                continue
            suffix = "." + entry.name.rsplit(".", 1)[-1] if "." in entry.name else ""
            content_type = CONTENT_TYPES.get(suffix)
            if content_type is None:
                continue  # only the kinds the page uses are served
            body = entry.read_bytes()
            etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            self.files[path] = StaticFile(body, content_type, etag)

    def response(self, request: Request, path: str) -> Response:
        """The file at ``path`` (404 when there is none), or 304 when the browser's copy is
        the same."""
        found = self.files.get(path)
        if found is None:
            return Response(
                "no such file", 404, {**SECURITY_HEADERS, "cache-control": "no-store"}, "text/plain"
            )
        headers = {**SECURITY_HEADERS, "cache-control": "no-cache", "etag": found.etag}
        if found.etag in _etags(request.headers.get("if-none-match", "")):
            return Response(None, 304, headers)
        return Response(found.body, 200, headers, found.content_type)


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


@functools.cache
def _installed() -> ConsoleFiles:
    return ConsoleFiles()


def console_routes(files: ConsoleFiles | None = None) -> list[BaseRoute]:
    """``GET /`` (the page) and ``GET /console/{path}`` (its files)."""
    served = files if files is not None else _installed()

    async def page(request: Request) -> Response:
        return served.response(request, "index.html")

    async def asset(request: Request) -> Response:
        return served.response(request, request.path_params["path"])

    return [
        Route("/", page, methods=["GET", "HEAD"]),
        Route(PREFIX + "{path:path}", asset, methods=["GET", "HEAD"]),
    ]
