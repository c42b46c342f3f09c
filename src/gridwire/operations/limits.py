"""The service's limits, in one place: the size of a message and what it may hold, the event
streams' idleness and batches, and how a Device Profile document larger than a message can
be given. The operations' descriptions, the OpenAPI text and README are written from (or held
to, by tests/test_limits_prose.py) these constants. The connections' timeouts and counts are
:class:`gridwire.net.connection_limits.Limits`; the master's limits :mod:`gridwire.master.limits`;
the document's own :mod:`gridwire.devprofile.limits`.
"""

from __future__ import annotations

from typing import Final

from gridwire.devprofile.limits import MAX_BYTES, mebibytes

MESSAGE_LIMIT: Final = 4 << 20
"""The largest HTTP body or line the service reads: 4 MiB."""
MESSAGE_ITEMS: Final = 10_000
"""The most items (array elements and object members, counted together) one message may hold.
A read names at most 4,096 indexes and ranges, an operate at most 512 controls; ten thousand
leaves room for anything real and bounds the worst to some 5 ms of parsing."""
ID_LENGTH: Final = 256
"""The longest string a message's ``id`` may be, in characters."""
NAME_LIMIT: Final = 1024
"""The longest name of a point, group or function taken, in characters."""
POINTS_LIMIT: Final = 2048
"""The most points one der.read names or one der.write writes (the point map's tables hold
about two thousand points); checking that many names takes a few milliseconds."""

STREAM_IDLE: Final = 60.0
"""Seconds a stream may go without accepting a write before it is closed."""
KEEPALIVE: Final = 15.0
"""Seconds between keep-alive comments on an event stream with nothing to say."""
BATCH_BYTES: Final = 256 * 1024
"""The most octets of events framed into one write of a stream."""

DOCUMENT_OPERATIONS: Final = ("der.document", "der.compare")
"""The operations that read a Device Profile document."""
DOCUMENT_BY_FILE: Final = (
    "the outstation's device_profile (a file, in add or its --config entry) or the service's "
    "--device-profile FILE"
)
"""Where a document too large for a message is given: a file the service reads itself."""
DOCUMENT_SIZES: Final = (
    f"A document is read up to {mebibytes(MAX_BYTES)}. Sent as document it travels in a "
    f"message, and every message, over HTTP and the line alike, is at most "
    f"{mebibytes(MESSAGE_LIMIT)} (HTTP 413 above; the line is answered with a request error "
    f"and closed), so a document sent is under {mebibytes(MESSAGE_LIMIT)}; one up to "
    f"{mebibytes(MAX_BYTES)} is given as a file: {DOCUMENT_BY_FILE}."
)
"""Which cap holds for a Device Profile document, said once for descriptions and README."""
TOO_LARGE_FOR_A_MESSAGE: Final = (
    f"; a Device Profile document over {mebibytes(MESSAGE_LIMIT)} (up to "
    f"{mebibytes(MAX_BYTES)}) is given as a file: {DOCUMENT_BY_FILE}"
)
"""Added to the refusal of a message too large for an operation that reads a document."""
