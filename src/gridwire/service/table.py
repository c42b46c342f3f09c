"""The table the service runs: every operation declared, in the order the help lists them.

A family of operations (the master's, and later ``der.*``, ``checks`` and ``evaluate``) is a
list of declarations in its own module; this is the one place the families are put together.
"""

from __future__ import annotations

from gridwire.service.der_documents import DER_DOCUMENT_OPERATIONS
from gridwire.service.der_operations import DER_OPERATIONS
from gridwire.service.evaluate_operations import EVALUATE_OPERATIONS
from gridwire.service.operation import OperationTable
from gridwire.service.operations import MASTER_OPERATIONS


def default_table() -> OperationTable:
    return OperationTable(
        MASTER_OPERATIONS, DER_OPERATIONS, DER_DOCUMENT_OPERATIONS, EVALUATE_OPERATIONS
    )
