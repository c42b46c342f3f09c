"""The operations service: the master's operations as JSON, from one table of declarations,
over HTTP (``gridwire console``: routes, server-sent events, OpenAPI) and over a line socket
(``gridwire serve``).

    service = Service(master)                      # the default table of operations
    app = build_app(service, token)                # FastAPI application
    line = LineServer(service, "127.0.0.1", 8816)  # await line.start()

A new operation is a new :class:`Operation` in a table (see :mod:`gridwire.operations.table`).
"""

from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OperationTable, OutstationParams, Params
from gridwire.operations.dispatch import Answer, Dispatcher
from gridwire.operations.limits import MESSAGE_LIMIT
from gridwire.operations.openapi import openapi_document
from gridwire.operations.table import default_table
from gridwire.service.config import ServiceConfig, load_config
from gridwire.service.runner import run_console, run_line
from gridwire.transports.http_app import STATUS_BY_KIND, build_app
from gridwire.transports.http_server import HttpServer
from gridwire.transports.line import LineServer
from gridwire.transports.service import Service

__all__ = [
    "MESSAGE_LIMIT",
    "STATUS_BY_KIND",
    "Answer",
    "Context",
    "Dispatcher",
    "HttpServer",
    "LineServer",
    "Operation",
    "OperationTable",
    "OutstationParams",
    "Params",
    "Service",
    "ServiceConfig",
    "build_app",
    "default_table",
    "load_config",
    "openapi_document",
    "run_console",
    "run_line",
]
