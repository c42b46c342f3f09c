"""The console's files as the HTTP service serves them: content types, caching (ETag and
304), the headers that hold the page to its own origin, no token needed for them, nothing
inline and nothing from another origin, and every module the page imports is served."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import httpx
import pytest

from gridwire.console.files import CONTENT_TYPES, ConsoleFiles
from tests.service.harness import running_service

FILES = ConsoleFiles().files
TYPES_BY_SUFFIX = {suffix.lstrip("."): kind for suffix, kind in CONTENT_TYPES.items()}


def _suffix(path: str) -> str:
    return path.rsplit(".", 1)[-1]


async def test_files_are_served_with_their_type_caching_and_policy() -> None:
    async with running_service() as svc, httpx.AsyncClient(base_url=svc.base_url) as client:
        page = await client.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert page.content == FILES["index.html"].body
        policy = page.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["default-src"] == "'self'"
        assert directives["script-src"] == "'self'"
        assert directives["style-src"] == "'self'"
        assert directives["connect-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert "unsafe" not in policy
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["cache-control"] == "no-cache"

        for path, served in FILES.items():
            response = await client.get(f"/console/{path}")
            assert response.status_code == 200, path
            assert response.headers["content-type"] == TYPES_BY_SUFFIX[_suffix(path)], path
            assert response.content == served.body
            etag = response.headers["etag"]
            again = await client.get(f"/console/{path}", headers={"if-none-match": etag})
            assert again.status_code == 304 and again.content == b"", path
            assert again.headers["etag"] == etag
            changed = await client.get(f"/console/{path}", headers={"if-none-match": '"other"'})
            assert changed.status_code == 200

        missing = await client.get("/console/nothing-here.js")
        assert missing.status_code == 404
        assert (await client.get("/console/../pyproject.toml")).status_code == 404


async def test_the_files_need_no_token_the_api_does() -> None:
    async with (
        running_service(token="t0ken") as svc,
        httpx.AsyncClient(base_url=svc.base_url) as client,
    ):
        assert (await client.get("/")).status_code == 200
        assert (await client.get("/console/main.js")).status_code == 200
        refused = await client.post("/api/status", json={})
        assert refused.status_code == 401


async def test_a_call_from_the_page_s_own_origin_is_answered() -> None:
    """What the page sends (POST /api, its own origin, JSON) passes the service's checks."""
    async with running_service() as svc, httpx.AsyncClient(base_url=svc.base_url) as client:
        answer = await client.post(
            "/api",
            json={"id": 1, "op": "status", "params": {}},
            headers={"origin": svc.base_url, "referer": svc.base_url + "/"},
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["ok"] is True


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.inline: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name in named:
            if name == "style" or name.startswith("on"):
                self.inline.append(f"<{tag} {name}>")
        if tag == "script":
            self.scripts.append(named)
            self.in_script = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and data.strip():
            self.inline.append(f"script text {data.strip()[:40]!r}")


def test_the_page_has_no_inline_script_or_style() -> None:
    markup = _Markup()
    markup.feed(FILES["index.html"].body.decode())
    assert markup.inline == []
    assert markup.scripts == [{"type": "module", "src": "console/main.js"}]


@pytest.mark.parametrize("path", sorted(FILES))
def test_nothing_comes_from_another_origin(path: str) -> None:
    text = FILES[path].body.decode()
    text = text.replace("http://www.w3.org/2000/svg", "")  # SVG's namespace: a name, not a fetch
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.IGNORECASE), path
    assert "eval(" not in text and "new Function" not in text, path


def _imports(path: str) -> list[str]:
    text = FILES[path].body.decode()
    found = re.findall(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""", text)
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    resolved = []
    for target in found:
        parts = (folder + target).split("/")
        stack: list[str] = []
        for part in parts:
            if part == "..":
                stack.pop()
            elif part not in (".", ""):
                stack.append(part)
        resolved.append("/".join(stack))
    return resolved


def test_every_module_imported_is_served_and_every_module_is_used() -> None:
    reached = set()
    todo = ["main.js"]
    while todo:
        path = todo.pop()
        if path in reached:
            continue
        assert path in FILES, f"{path} is imported but not served"
        reached.add(path)
        todo += _imports(path)
    modules = {p for p in FILES if p.endswith(".js")}
    assert modules - reached == set(), "modules nothing imports"
