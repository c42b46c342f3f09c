"""A Device Profile layout as a standalone printable HTML page (``gridwire document --html``).

The page is rendered by Jinja2 from ``templates/document.html.j2`` with autoescaping on, so
whatever text a document holds is shown, never interpreted. It has a table of contents, its
style inline, no script and nothing fetched from elsewhere; printed, each table's head is
repeated on every page and no row is split across pages.
"""

from __future__ import annotations

from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from gridwire import __version__
from gridwire.devprofile.layout import Layout

TEMPLATE = "document.html.j2"


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("gridwire.devprofile", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )


def render_html(layout: Layout) -> str:
    """The page for ``layout``."""
    return _environment().get_template(TEMPLATE).render(layout=layout, version=__version__)
