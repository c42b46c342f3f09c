"""The operations service: the master's operations as JSON, from one table of declarations,
over HTTP (``gridwire console``: routes, server-sent events, OpenAPI) and over a line socket
(``gridwire serve``).

    service = Service(master)                      # the default table of operations
    app = build_app(service, token)                # FastAPI application
    line = LineServer(service, "127.0.0.1", 8816)  # await line.start()

A new operation is a new :class:`Operation` in a table (see :mod:`gridwire.operations.table`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOMES = {
    "Context": "gridwire.operations.context",
    "Operation": "gridwire.operations.declaration",
    "OperationTable": "gridwire.operations.declaration",
    "OutstationParams": "gridwire.operations.declaration",
    "Params": "gridwire.operations.declaration",
    "Answer": "gridwire.operations.dispatch",
    "Dispatcher": "gridwire.operations.dispatch",
    "MESSAGE_LIMIT": "gridwire.operations.limits",
    "openapi_document": "gridwire.operations.openapi",
    "default_table": "gridwire.operations.table",
    "ServiceConfig": "gridwire.service.config",
    "load_config": "gridwire.service.config",
    "run_console": "gridwire.service.runner",
    "run_line": "gridwire.service.runner",
    "STATUS_BY_KIND": "gridwire.transports.http_app",
    "build_app": "gridwire.transports.http_app",
    "HttpServer": "gridwire.transports.http_server",
    "LineServer": "gridwire.transports.line",
    "Service": "gridwire.transports.service",
}
"""Where each name lives: imported when first asked for, so that importing
``gridwire.service.config`` (as every command's options do) does not start FastAPI."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


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
