"""``/docs``: Swagger UI from the assets of the ``swagger-ui-bundle-v2`` package (Swagger UI 5,
Apache-2.0), served by the app itself, so the page loads nothing from a CDN."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles


def swagger_ui_directory() -> Path:
    """The folder of Swagger UI's distribution files inside the installed bundle."""
    vendor = Path(str(files("swagger_ui_bundle") / "vendor"))
    found = sorted(p for p in vendor.glob("swagger-ui-*") if (p / "swagger-ui-bundle.js").is_file())
    if not found:
        raise RuntimeError(f"no Swagger UI distribution under {vendor}")
    return found[-1]


def install_docs(app: FastAPI, docs_url: str = "/docs") -> None:
    """Serve Swagger UI at ``docs_url`` and its assets under ``docs_url/assets``."""
    assets = f"{docs_url}/assets"
    app.mount(assets, StaticFiles(directory=swagger_ui_directory()), name="swagger-ui-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(docs_url, include_in_schema=False)
    async def docs(request: Request) -> HTMLResponse:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        return get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - API docs",
            swagger_js_url=f"{root}{assets}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{assets}/swagger-ui.css",
            swagger_favicon_url=f"{root}{assets}/favicon-32x32.png",
        )
