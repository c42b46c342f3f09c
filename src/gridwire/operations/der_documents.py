"""der.document, der.compare and der.describe: the operations on Device Profile documents, one
declaration each (the procedures are :mod:`gridwire.devprofile`, :mod:`gridwire.derops.compare`
and :mod:`gridwire.derops.describe`, which writes a document of what an outstation serves).

Neither commands an outstation (der.compare only reads) and neither needs a point map. The
document is the one sent as ``document``; else the outstation's own (``device_profile`` given
to ``add`` or in its ``--config`` entry); else the service's ``--device-profile``
(:mod:`gridwire.derops.documents`). A document sent travels in a message and is bounded by
the message cap (4 MiB); one up to the document limit (8 MiB) is given as a file: the
descriptions say so from :mod:`gridwire.operations.limits`.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from gridwire.derops.compare import CompareResult, der_compare
from gridwire.derops.describe import DescribeResult, der_describe
from gridwire.derops.documents import der_document
from gridwire.devprofile.layout import Layout
from gridwire.devprofile.limits import (
    MAX_BYTES,
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_DEPTH,
    MAX_ELEMENTS,
    mebibytes,
)
from gridwire.master.settings import NAME_LENGTH
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OutstationParams, Params, declare
from gridwire.operations.limits import DOCUMENT_SIZES, MESSAGE_LIMIT

_DOCUMENT = Field(
    default=None,
    description=f"The Device Profile XML as text (under {mebibytes(MESSAGE_LIMIT)}, the "
    f"message cap; up to {mebibytes(MAX_BYTES)} as a file); else the outstation's "
    "device_profile, else the service's --device-profile",
)


class DerDocumentParams(Params):
    outstation: str | None = Field(
        default=None,
        min_length=1,
        max_length=NAME_LENGTH,
        description="An outstation whose document to lay out",
    )
    document: str | None = _DOCUMENT


class DerCompareParams(OutstationParams):
    document: str | None = _DOCUMENT


async def _document(context: Context, params: DerDocumentParams) -> Layout:
    return await der_document(
        context.master, params.outstation, params.document, context.device_profile
    )


async def _compare(context: Context, params: DerCompareParams) -> CompareResult:
    return await der_compare(
        context.master, params.outstation, params.document, context.device_profile
    )


async def _describe(context: Context, params: OutstationParams) -> DescribeResult:
    return await der_describe(context.master, params.outstation)


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
        f"that is not XML, not a Device Profile, declares a DTD or an entity, is over "
        f"{mebibytes(MAX_BYTES)}, nests deeper than {MAX_DEPTH}, holds over {MAX_ELEMENTS:,} "
        f"elements, or would make a table wider than {MAX_COLUMNS} columns or the tables "
        f"larger than {MAX_CELLS:,} cells is a request error naming the rule. {DOCUMENT_SIZES}",
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
        f"deadband as declared) and exchanges. Needs no point map. {DOCUMENT_SIZES}",
    ),
    declare(
        "der.describe",
        params=OutstationParams,
        result=DescribeResult,
        handler=_describe,
        summary="Write a Device Profile document of what an outstation serves; reads only",
        description="A class 0 read, an output status read, every point of the outstation's "
        "point map neither returned (range by range when refused whole), its device attributes "
        "(g0v254), then a class 1, 2 and 3 read. Answers document (Device Profile XML, schema "
        "2.12.00, every value marked observed: class 0 inclusion, static and event variations, "
        "the event class an event came in, the objects and function codes accepted), counts by "
        "point type, points, attributes, function_codes, variations and exchanges. Needs no "
        "point map; the class reads take the events the outstation holds (an outstation added "
        "with manual and confirm keeps them for these reads).",
    ),
]
