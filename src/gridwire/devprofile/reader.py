"""The hardened reader of Device Profile documents (DNP3 Device Profile XML, any edition).

A document comes from whoever calls the service, so it is read as hostile input with expat
through defusedxml, and refused, with a :class:`RequestError` naming the rule, when it:

- is larger than :data:`~gridwire.devprofile.limits.MAX_BYTES` (8 MiB, the largest document
  ``der.document`` takes), before anything is parsed;
- declares a document type (a DTD), refused as the declaration starts, so no entity it
  declares is ever expanded and nothing it names outside the document is fetched;
- refers to an entity (only the five XML predefines and character references are taken);
- is not XML;
- has a root element other than ``DNP3DeviceProfileDocument`` (its namespace is ignored:
  every edition has its own);
- holds more than :data:`MAX_ELEMENTS` elements or nests them deeper than :data:`MAX_DEPTH`.

The limits are checked as the parser reaches them, so a refused document costs no more than
the part of it read before the rule was broken. What comes back is an ElementTree element
whose tags and attribute names are local names (namespaces dropped), comments and processing
instructions left out: the layout and the comparison read element names, not a schema.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Final
from xml.parsers.expat import errors as expat_errors

from defusedxml import DefusedXmlException, DTDForbidden
from defusedxml.ElementTree import DefusedXMLParser

from gridwire.devprofile.errors import RefusedDocument
from gridwire.devprofile.limits import MAX_BYTES, MAX_DEPTH, MAX_ELEMENTS, mebibytes

ROOT: Final = "DNP3DeviceProfileDocument"

_UNDEFINED_ENTITY = expat_errors.codes[expat_errors.XML_ERROR_UNDEFINED_ENTITY]
_DOCUMENT = "Device Profile document"


def local(name: str) -> str:
    """A tag or attribute name without its namespace (``{uri}name`` -> ``name``)."""
    return name.rpartition("}")[2] if name.startswith("{") else name


class _Builder:
    """The parser's target: builds the tree with local names, counting elements and depth,
    and checking the root as it opens."""

    def __init__(self, refused: str) -> None:
        self._refused = refused
        self._tree = ET.TreeBuilder()
        self._depth = 0
        self._elements = 0
        self._names: dict[str, str] = {}  # a document repeats its few names many times
        self.data = self._tree.data

    def _local(self, name: str) -> str:
        found = self._names.get(name)
        if found is None:
            found = self._names[name] = local(name)
        return found

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        name = self._local(tag)
        if self._elements == 0 and name != ROOT:
            raise RefusedDocument(
                f"{self._refused}: it is not a Device Profile (its root element is <{name}>, "
                f"not <{ROOT}>)"
            )
        self._elements += 1
        self._depth += 1
        if self._elements > MAX_ELEMENTS:
            raise RefusedDocument(
                f"{self._refused}: it holds more than {MAX_ELEMENTS:,} elements (the limit)"
            )
        if self._depth > MAX_DEPTH:
            raise RefusedDocument(
                f"{self._refused}: its elements nest more than {MAX_DEPTH} deep (the limit)"
            )
        if attrib:
            attrib = {self._local(k): v for k, v in attrib.items()}
        self._tree.start(name, attrib)

    def end(self, tag: str) -> None:
        self._depth -= 1
        self._tree.end(self._names[tag])

    def close(self) -> ET.Element:
        return self._tree.close()


def _size(document: str | bytes) -> int:
    if isinstance(document, bytes):
        return len(document)
    if len(document) > MAX_BYTES:  # at least one octet a character
        return len(document)
    return len(document.encode("utf-8", "surrogatepass"))


def read_document(document: str | bytes, what: str = _DOCUMENT) -> ET.Element:
    """The root element of a Device Profile document (text, or octets in the encoding the
    document declares); RequestError naming the rule a refused document breaks (``what``
    names the document in the message)."""
    refused = f"{what} refused"
    size = _size(document)
    if size > MAX_BYTES:
        raise RefusedDocument(
            f"{refused}: it is larger than {mebibytes(MAX_BYTES)} ({size:,} bytes; the limit is "
            f"{MAX_BYTES:,})"
        )
    builder = _Builder(refused)
    parser = DefusedXMLParser(
        target=builder, forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    try:
        parser.feed(document)
        root = parser.close()
    except DTDForbidden:
        raise RefusedDocument(
            f"{refused}: it declares a document type (DTD); a Device Profile may not"
        ) from None
    except DefusedXmlException as exc:
        raise RefusedDocument(
            f"{refused}: it declares entities or refers outside itself ({type(exc).__name__})"
        ) from None
    except ET.ParseError as exc:
        line, column = exc.position
        if exc.code == _UNDEFINED_ENTITY:
            raise RefusedDocument(
                f"{refused}: it refers to an entity (line {line}, column {column}); "
                "a Device Profile may use only character references and the five XML ones"
            ) from None
        raise RefusedDocument(f"{refused}: it is not XML ({_reason(exc)})") from None
    except (UnicodeError, ValueError) as exc:
        raise RefusedDocument(f"{refused}: it is not XML ({exc})") from None
    if not isinstance(root, ET.Element):  # pragma: no cover - the builder always gives one
        raise RefusedDocument(f"{refused}: it is not XML (no root element)")
    return root


def _reason(exc: ET.ParseError) -> str:
    message = str(exc)
    return message if len(message) <= 200 else message[:200] + "..."


def read_document_file(path: Path, whose: str = "") -> ET.Element:
    """The Device Profile document in a file; RequestError naming the file when it cannot be
    read or is refused. Reads at most one octet more than the limit."""
    what = f"{_DOCUMENT} {path}" + (f" ({whose})" if whose else "")
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as exc:
        raise RefusedDocument(f"{what} cannot be read: {exc.strerror or exc}") from None
    return read_document(data, what)
