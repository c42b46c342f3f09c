"""The prose is held to the limits: README and the operations' descriptions (as the OpenAPI
document serves them) name each limit as its constant says, written here from the constant,
so a limit changed in its module and not in the prose fails this test. Each layer's limits
are in one module: gridwire.master.limits, gridwire.operations.limits, gridwire.devprofile.limits,
gridwire.sep2.limits (and gridwire.net.connection_limits for connections)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gridwire.devprofile import limits as document
from gridwire.devprofile.limits import mebibytes
from gridwire.master import limits as master
from gridwire.net.binding import HOST_LENGTH
from gridwire.net.connection_limits import Limits
from gridwire.net.tls_files import PATH_LENGTH
from gridwire.operations import limits as service
from gridwire.operations.openapi import openapi_document
from gridwire.operations.table import default_table
from gridwire.sep2 import limits as sep2
from gridwire.sep2.config import ServerConfig

README = Path(__file__).resolve().parents[1] / "README.md"


def flat(text: str) -> str:
    """Text with every run of white space one space: prose wraps where it likes."""
    return re.sub(r"\s+", " ", text)


CONNECTIONS = Limits()

README_PHRASES = [
    # the service
    f"413 over {mebibytes(service.MESSAGE_LIMIT)}",
    f"`id` is a string of up to {service.ID_LENGTH} characters",
    f"A message may hold at most {service.MESSAGE_ITEMS:,} items",
    f"A name is at most {service.NAME_LIMIT} characters and a message names at most "
    f"{service.POINTS_LIMIT} points",
    f"every message, over HTTP and the line alike, is at most {mebibytes(service.MESSAGE_LIMIT)}",
    f"a document sent is under {mebibytes(service.MESSAGE_LIMIT)}, and one up to "
    f"{mebibytes(document.MAX_BYTES)} is given as a file",
    # the Device Profile document
    f"A document is read up to {mebibytes(document.MAX_BYTES)}",
    f"is over {mebibytes(document.MAX_BYTES)}, nests deeper than {document.MAX_DEPTH}, holds "
    f"over {document.MAX_ELEMENTS:,} elements, or would make a table wider than "
    f"{document.MAX_COLUMNS} columns or the tables larger than {document.MAX_CELLS:,} cells",
    # the master
    f"A read names at most {master.READ_ITEMS:,} indexes and ranges",
    f"(249 to {master.MAX_REQUEST_FRAGMENT})",
    f"Outstation names are at most {master.NAME_LENGTH} characters, hosts {HOST_LENGTH}, file "
    f"names {PATH_LENGTH}",
    f"`wait_for`'s timeout and `connect`'s wait are at most {master.LONGEST_WAIT:,.0f} s",
    f"from {master.MIN_SCAN_INTERVAL} s to a day",
    f"An event stream that falls {master.BACKLOG_LIMIT:,} updates behind is sent `lost`",
    # connections
    f"request headers must arrive within {CONNECTIONS.header_timeout:g} s and a body within "
    f"{CONNECTIONS.body_timeout:g} s",
    f"an idle HTTP connection closes after {CONNECTIONS.keep_alive:g} s",
    f"of its events for {CONNECTIONS.send_timeout:g} s is cut",
    f"of its events for {service.STREAM_IDLE:g} s is cut",  # the stream's own idleness
    f"no message for {CONNECTIONS.line_idle / 60:g} minutes",
    f"at most {CONNECTIONS.max_connections} connections per service",
    f"408 a body that took more than {CONNECTIONS.body_timeout:g} s",
    # the 2030.5 client
    f"An answer of the head-end over {mebibytes(sep2.MAX_BODY)} is refused, a list is followed "
    f"for at most {sep2.MAX_PAGES:,} pages, and `page_size` (entries asked for per page) is at "
    f"most {sep2.MAX_PAGE_SIZE}",
]


@pytest.mark.parametrize("phrase", README_PHRASES)
def test_readme_names_each_limit_as_its_constant_says(phrase: str) -> None:
    assert phrase in flat(README.read_text(encoding="utf-8"))


def test_a_day_is_the_longest_reconnect_and_wait() -> None:
    assert master.LONGEST_RECONNECT == master.LONGEST_WAIT == 86_400.0  # "a day" in README


def test_the_document_operations_say_which_cap_holds() -> None:
    """der.document and der.compare say, in the OpenAPI document the service serves, that a
    document sent is bounded by the message cap and a larger one is given as a file."""
    openapi = openapi_document(default_table())
    paths = openapi["paths"]
    for name in service.DOCUMENT_OPERATIONS:
        text = flat(paths[f"/api/{name}"]["post"]["description"])
        assert service.DOCUMENT_SIZES in text, name
        assert f"at most {mebibytes(service.MESSAGE_LIMIT)}" in text
        assert f"up to {mebibytes(document.MAX_BYTES)} is given as a file" in text
        assert "--device-profile FILE" in text
    described = flat(str(paths["/api/der.document"]["post"]))
    assert f"nests deeper than {document.MAX_DEPTH}" in described
    parameter = flat(str(openapi["components"]["schemas"]["DerDocumentParams"]))
    assert f"under {mebibytes(service.MESSAGE_LIMIT)}, the message cap" in parameter


def test_the_page_size_is_bounded_by_its_constant() -> None:
    schema = ServerConfig.model_json_schema()["properties"]["page_size"]
    assert schema["maximum"] == sep2.MAX_PAGE_SIZE


def test_mebibytes() -> None:
    assert (mebibytes(8 << 20), mebibytes(1 << 20), mebibytes(1000)) == (
        "8 MiB",
        "1 MiB",
        "1,000 octets",
    )
