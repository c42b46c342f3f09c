"""The master's limits, in one place: names, fragments, reads, waits, schedules, the event
bus and connecting. The modules that apply them import them from here; the operations'
parameter descriptions and README are written from (or held to, by
tests/test_limits_prose.py) these constants."""

from __future__ import annotations

from typing import Final

NAME_LENGTH: Final = 255
"""The longest name of an outstation, in characters (it travels in every event and status)."""
MAX_REQUEST_FRAGMENT: Final = 65535
"""The largest ``max_request_fragment`` that can be set (the most the outstation's own
``max_fragment`` takes)."""
READ_ITEMS: Final = 4096
"""Indexes and ``"a-b"`` ranges one read may name, every point type together. A request
fragment holds a few hundred range headers at most (409 in the 2048 octets most outstations
take), so this is far beyond any read that can be sent; it bounds the work of one message."""
MIN_SCAN_INTERVAL: Final = 0.1
"""The shortest interval of a scan on a schedule, in seconds (``repeat`` and the interval
settings): ten scans a second, faster than any outstation is polled in service; a master
asks one request at a time, so scans any closer would only queue behind each other."""
LONGEST_RECONNECT: Final = 86_400.0
"""The longest wait between reconnection attempts, in seconds (a day, as the service's
longest wait)."""
LONGEST_WAIT: Final = 86_400.0
"""The longest a message may ask the master to wait, in seconds (one day): ``wait_for``'s
timeout and ``connect``'s wait. Longer is refused rather than held for a client that may be
long gone."""
BACKLOG_LIMIT: Final = 10_000
"""Updates one event-bus subscriber may fall behind before they are dropped (``lost``)."""
CONNECT_TIMEOUT: Final = 5.0
"""Seconds one connection attempt may take."""
CONNECT_RETRY: Final = 1.0
"""Seconds between connection attempts while ``connect`` waits."""
STATUS_PAGE: Final = 500
"""Outstations one ``status`` answer lists unless it asks for more (``limit``): a page is
built and written in a few ms, where 10,000 entries take a few hundred."""
STATUS_PAGE_MAX: Final = 100_000
"""The most outstations one ``status`` may ask to be listed (``limit``)."""
STATUS_SLICE: Final = 0.003
"""Seconds of building status entries between two turns of the event loop."""
MAX_LATE_SECONDS: Final = 3600.0
"""The largest number of seconds a timing deviation takes (``true`` means the default, 10 s)."""
MAX_SERIES: Final = 4096
"""The largest number of segments a series deviation takes (``true`` means the default, 64)."""
