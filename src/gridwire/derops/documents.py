"""Which Device Profile document der.document and der.compare use, and der.document itself.

The document is the one given (text, octets, or a file); else the outstation's own
(``device_profile`` given to ``add`` or in its ``--config`` entry); else the fallback (the
service's ``--device-profile``). None of them is a RequestError saying how to give one.
Reading and laying out a document (up to 8 MiB) runs in a worker thread, so the event loop
keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from pathlib import Path

from gridwire.derops.errors import NotConfigured
from gridwire.devprofile.layout import Layout, lay_out
from gridwire.devprofile.reader import read_document, read_document_file
from gridwire.errors import BadParameter
from gridwire.master import Master

HOW_TO_GIVE_A_DOCUMENT = (
    "send it as document, give the outstation device_profile (a file) in add or in its "
    "--config entry, or start the service with --device-profile FILE"
)

Document = str | bytes | Path
"""A document as given: its text, its octets, or the file that holds it."""
Source = str | bytes | tuple[Path, str]
"""A document to read: text or octets, or a file with the words that say whose it is."""


def document_source(
    master: Master,
    outstation: str | None,
    document: Document | None,
    fallback: Path | None = None,
) -> Source:
    """The document to use (see the module's notes). A named outstation must exist."""
    own = master.settings(outstation).device_profile if outstation else None
    if isinstance(document, Path):
        return (document, "")
    if document is not None:
        return document
    if own is not None:
        return (Path(own), f"device_profile of outstation {outstation!r}")
    if fallback is not None:
        return (fallback, "the service's --device-profile")
    if outstation is not None:
        raise NotConfigured(
            f"outstation {outstation!r} has no Device Profile document: {HOW_TO_GIVE_A_DOCUMENT}"
        )
    raise BadParameter(
        "der.document needs a Device Profile document: send it as document, or name an "
        "outstation that has one (device_profile in add or --config, or the service's "
        "--device-profile)"
    )


def read_source(source: Source) -> ET.Element:
    """The root of the document ``source`` names; RequestError when it is refused."""
    if isinstance(source, tuple):
        path, whose = source
        return read_document_file(path, whose)
    return read_document(source)


async def read_source_off_loop(source: Source) -> ET.Element:
    return await asyncio.to_thread(read_source, source)


def _layout(source: Source) -> Layout:
    return lay_out(read_source(source))


async def der_document(
    master: Master,
    outstation: str | None = None,
    document: Document | None = None,
    fallback: Path | None = None,
) -> Layout:
    """der.document: the layout of the document :func:`document_source` chooses. Sends
    nothing: an outstation not connected is answered."""
    source = document_source(master, outstation, document, fallback)
    return await asyncio.to_thread(_layout, source)
