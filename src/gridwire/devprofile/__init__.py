"""DNP3 Device Profile documents (the XML form of IEEE 1815-2012's device profile): read with
hardened limits (:mod:`.reader`), laid out as tables of text (:mod:`.layout`, the result of
``der.document``) and as a printable page (:mod:`.html`), their declared points taken out
for a comparison (:mod:`.points`), and written for a device of our own (:mod:`.writer`).

Nothing here is specific to DER: the documents describe any DNP3 device.
"""

from gridwire.devprofile.layout import Fact, Layout, Section, Table, lay_out
from gridwire.devprofile.points import DeclaredPoint, declared_points
from gridwire.devprofile.reader import read_document, read_document_file

__all__ = [
    "DeclaredPoint",
    "Fact",
    "Layout",
    "Section",
    "Table",
    "declared_points",
    "lay_out",
    "read_document",
    "read_document_file",
]
