"""The 2030.5 client's limits, in one place: how large an answer of the head-end is read, how
many pages of a list are followed, and how many entries a page asks for. The modules that
apply them import them from here; README is held to them by tests/test_limits_prose.py.
(The management API's connections are held under :class:`gridwire.net.connection_limits.Limits`.)
"""

from __future__ import annotations

from typing import Final

MAX_BODY: Final = 1 << 20
"""The largest answer body read from the head-end, in octets (1 MiB)."""
MAX_PAGES: Final = 1000
"""A list longer than this many pages is read no further."""
MAX_PAGE_SIZE: Final = 255
"""The most entries one list page may ask for (``page_size``; the limit attribute ``l`` is
an unsigned 8-bit number)."""
