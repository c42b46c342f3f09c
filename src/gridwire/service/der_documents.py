"""der.document and der.compare: the operations on Device Profile documents, one declaration
each (the procedures are :mod:`gridwire.devprofile` and :mod:`gridwire.derops.compare`).

Neither commands an outstation (der.compare only reads) and neither needs a profile. The
document is the one sent as ``document``; else the outstation's own (``device_profile`` given
to ``add`` or in its ``--config`` entry); else the service's ``--device-profile``. Reading
and laying out a document (up to 8 MiB) runs in a worker thread, so the event loop keeps
answering other messages meanwhile.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from pydantic import Field

from gridwire.derops.compare import CompareResult, der_compare
from gridwire.devprofile.layout import Layout, lay_out
from gridwire.devprofile.reader import read_document, read_document_file
from gridwire.errors import RequestError
from gridwire.service.context import Context
from gridwire.service.operation import Operation, OutstationParams, Params, declare

HOW_TO_GIVE_A_DOCUMENT = (
    "send it as document, give the outstation device_profile (a file) in add or in its "
    "--config entry, or start the service with --device-profile FILE"
)
_DOCUMENT = Field(
    default=None,
    description="The Device Profile XML as text (at most 8 MiB); else the outstation's "
    "device_profile, else the service's --device-profile",
)


class DerDocumentParams(Params):
    outstation: str | None = Field(
        default=None, min_length=1, description="An outstation whose document to lay out"
    )
    document: str | None = _DOCUMENT


class DerCompareParams(OutstationParams):
    document: str | None = _DOCUMENT


def document_source(
    context: Context, outstation: str | None, document: str | None
) -> str | tuple[Path, str]:
    """The document to use: the text sent, else a file (the outstation's device_profile, else
    the service's --device-profile); RequestError saying how to give one when there is none.
    A named outstation must exist."""
    own = context.master.session(outstation).settings.device_profile if outstation else None
    if document is not None:
        return document
    if own is not None:
        return (Path(own), f"device_profile of outstation {outstation!r}")
    if context.device_profile is not None:
        return (context.device_profile, "the service's --device-profile")
    if outstation is not None:
        raise RequestError(
            f"outstation {outstation!r} has no Device Profile document: {HOW_TO_GIVE_A_DOCUMENT}"
        )
    raise RequestError(
        "der.document needs a Device Profile document: send it as document, or name an "
        "outstation that has one (device_profile in add or --config, or the service's "
        "--device-profile)"
    )


def read_source(source: str | tuple[Path, str]) -> ET.Element:
    """The root of the document ``source`` names (see :func:`document_source`)."""
    if isinstance(source, tuple):
        path, whose = source
        return read_document_file(path, whose)
    return read_document(source)


def _layout(source: str | tuple[Path, str]) -> Layout:
    return lay_out(read_source(source))


async def _document(context: Context, params: DerDocumentParams) -> Layout:
    source = document_source(context, params.outstation, params.document)
    return await asyncio.to_thread(_layout, source)


async def _compare(context: Context, params: DerCompareParams) -> CompareResult:
    source = document_source(context, params.outstation, params.document)
    root = await asyncio.to_thread(read_source, source)
    profile = context.master.point_map(params.outstation)
    name_of = profile.name_of if profile is not None else None
    return await der_compare(context.master, params.outstation, root, name_of)


DER_DOCUMENT_OPERATIONS: list[Operation[Any]] = [
    declare(
        "der.document",
        params=DerDocumentParams,
        result=Layout,
        handler=_document,
        summary="Lay out a Device Profile document as tables; sends nothing",
        description="title, notice, facts and sections (each with tables of text) of the "
        "document sent, or of the outstation's own; answered without control, for an "
        "outstation not connected, and with no outstation when document is sent. A document "
        "that is not XML, not a Device Profile, declares a DTD or an entity, is over 8 MiB, "
        "too deep, too large or too wide is a request error naming the rule.",
    ),
    declare(
        "der.compare",
        params=DerCompareParams,
        result=CompareResult,
        handler=_compare,
        summary="Compare what an outstation serves with its Device Profile; reads only",
        description="A class 0 read, an output status read, then every declared point "
        "neither returned, range by range when refused whole. Answers declared, served, "
        "absent, undeclared, class_0 (with carried), points (event class, class 0 and "
        "deadband as declared) and exchanges. Needs no profile.",
    ),
]
