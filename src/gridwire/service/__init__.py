"""The operations service: the master's operations as JSON, from one table of declarations,
over HTTP (``gridwire console``: routes, server-sent events, OpenAPI) and over a line socket
(``gridwire serve``).

    service = Service(master)                      # the default table of operations
    app = build_app(service, token)                # FastAPI application
    line = LineServer(service, "127.0.0.1", 8816)  # await line.start()

A new operation is a new :class:`Operation` in a table (see :mod:`gridwire.service.table`).
"""

from gridwire.service.config import ServiceConfig, load_config
from gridwire.service.context import Context
from gridwire.service.core import Service
from gridwire.service.dispatch import Answer, Dispatcher
from gridwire.service.http_app import STATUS_BY_KIND, build_app
from gridwire.service.http_server import HttpServer
from gridwire.service.limits import MESSAGE_LIMIT
from gridwire.service.line import LineServer
from gridwire.service.openapi import openapi_document
from gridwire.service.operation import Operation, OperationTable, OutstationParams, Params
from gridwire.service.runner import run_console, run_line
from gridwire.service.table import default_table

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
