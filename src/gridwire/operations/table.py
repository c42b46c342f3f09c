"""The table the service runs: every operation declared, in the order the help lists them.

A family of operations (the master's, and later ``der.*``, ``checks`` and ``evaluate``) is a
list of declarations in its own module; this is the one place the families are put together.
"""

from __future__ import annotations

from gridwire.operations.channel_operations import CHANNEL_OPERATIONS
from gridwire.operations.declaration import OperationTable
from gridwire.operations.der_documents import DER_DOCUMENT_OPERATIONS
from gridwire.operations.der_operations import DER_OPERATIONS
from gridwire.operations.der_schedules import DER_SCHEDULE_OPERATIONS
from gridwire.operations.evaluate_operations import EVALUATE_OPERATIONS
from gridwire.operations.file_operations import FILE_OPERATIONS
from gridwire.operations.master_operations import MASTER_OPERATIONS


def default_table() -> OperationTable:
    return OperationTable(
        MASTER_OPERATIONS,
        CHANNEL_OPERATIONS,
        DER_OPERATIONS,
        DER_SCHEDULE_OPERATIONS,
        DER_DOCUMENT_OPERATIONS,
        EVALUATE_OPERATIONS,
        FILE_OPERATIONS,
    )
