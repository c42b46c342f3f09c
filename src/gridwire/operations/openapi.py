"""The OpenAPI 3.1 document of the HTTP service, built from the operation table: a route per
operation with its parameter model as the request body and its result in the ok envelope,
the message form, the event stream, the two error shapes and the status codes.

Schemas come from pydantic (parameter models in validation mode, result records in
serialization mode), all generated together so that shared records are defined once under
``components/schemas``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson
from pydantic import TypeAdapter

from gridwire import __version__
from gridwire.operations.declaration import Operation, OperationTable

JSON = "application/json"
REF = "#/components/schemas/{model}"
KINDS = ["request", "connection", "not_allowed", "internal"]

STATUS_TEXT = {
    400: "Not acted on (error kind request): unknown outstation, a parameter of the wrong "
    "kind, a body that is missing or not JSON, or a message without an op or with an id "
    "that is not a string of up to 256 characters, a number or null",
    403: "The operation commands the outstation and the service was not started with "
    "--allow-control (error kind not_allowed); or, id null and kind request, a request "
    "from another origin or to a name that is not the service's (Host)",
    503: "No connection to ask over, or one could not be made (error kind connection)",
    500: "The operation failed unexpectedly (error kind internal): a bug in the service, "
    "whose log holds the details; no input, valid or not, should cause it",
    401: "No token, or the wrong one: nothing was done",
    408: "The body did not arrive whole within 30 s of the headers: nothing was done",
    413: "The message is larger than 4 MiB: refused before it was read whole",
    415: "The body is not application/json",
}
FOREIGN = 403
"""Also the status of a refused Host or Origin (a Refusal) on every route."""
OPERATION_ERRORS = (400, 403, 503, 500)
REFUSALS = (401, 408, 413, 415)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def _envelope(result: dict[str, Any], ident: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["id", "ok", "result"],
        "properties": {"id": ident, "ok": {"const": True}, "result": result},
        "additionalProperties": False,
    }


def _error_schemas() -> dict[str, Any]:
    error = {
        "type": "object",
        "required": ["kind", "message"],
        "properties": {
            "kind": {"type": "string", "enum": KINDS},
            "message": {"type": "string"},
        },
        "additionalProperties": False,
    }
    refusal_error = {
        "type": "object",
        "required": ["kind", "message"],
        "properties": {"kind": {"const": "request"}, "message": {"type": "string"}},
        "additionalProperties": False,
    }
    return {
        "Error": error,
        "ErrorEnvelope": {
            "description": "An operation that was not carried out; id repeats the message's",
            "type": "object",
            "required": ["id", "ok", "error"],
            "properties": {"id": {}, "ok": {"const": False}, "error": _ref("Error")},
            "additionalProperties": False,
        },
        "Refusal": {
            "description": "A message refused before any operation ran (token, size, type)",
            "type": "object",
            "required": ["id", "ok", "error"],
            "properties": {"id": {"type": "null"}, "ok": {"const": False}, "error": refusal_error},
            "additionalProperties": False,
        },
    }


def _responses(ok: dict[str, Any], statuses: tuple[int, ...]) -> dict[str, Any]:
    responses: dict[str, Any] = {"200": _json(ok, "Carried out (ok true)")}
    for status in statuses:
        shape = "Refusal" if status in REFUSALS else "ErrorEnvelope"
        responses[str(status)] = _json(_ref(shape), STATUS_TEXT[status])
    if str(FOREIGN) not in responses:
        responses[str(FOREIGN)] = _json(_ref("Refusal"), STATUS_TEXT[FOREIGN])
    return responses


def _statuses(operation: Operation[Any]) -> tuple[int, ...]:
    # not_allowed (403) only where some parameters command; a connection error (503) may
    # come from any operation that reaches the master (add connects, the rest ask over a
    # connection). Every route may refuse a foreign Host or Origin with 403 (a Refusal), and
    # any operation may meet a bug (500, kind internal).
    statuses = (400, 403, 503, 500) if operation.may_command else (400, 503, 500)
    return (*statuses, *REFUSALS)


_OCTETS: dict[tuple[Hashable, ...], bytes] = {}
"""Documents already built, as JSON, by what they are made of (see :func:`openapi_octets`)."""


def _shape(operation: Operation[Any]) -> Hashable:
    """What of ``operation`` its part of the document depends on (its handler does not)."""
    return (
        operation.name,
        operation.params,
        repr(operation.result),
        operation.summary,
        operation.description,
        operation.may_command,
    )


def openapi_octets(table: OperationTable) -> bytes:
    """:func:`openapi_document` as JSON, built once per process for tables of the same
    operations: pydantic takes a second or more of CPU to make the schemas, which every
    service (and every worker of a cluster) would otherwise spend again as it starts."""
    key = tuple(_shape(operation) for operation in table)
    octets = _OCTETS.get(key)
    if octets is None:
        octets = _OCTETS[key] = orjson.dumps(openapi_document(table))
    return octets


def _tuple_of(types: list[Any]) -> Any:
    """``tuple[types[0], types[1], ...]``, made at run time."""
    return tuple.__class_getitem__(tuple(types))


def _schemas(table: OperationTable) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """Each operation's parameter and result schemas, in the table's order, and the records
    they share. One adapter over a tuple of every operation's parameters (and one of their
    results) makes each shared dataclass's schema once, where an adapter per operation made
    it again for each: the same document in half the time."""
    operations = list(table)
    params: TypeAdapter[Any] = TypeAdapter(_tuple_of([op.params for op in operations]))
    results: TypeAdapter[Any] = TypeAdapter(_tuple_of([op.result for op in operations]))
    inputs: list[tuple[str, Any, TypeAdapter[Any]]] = [
        ("params", "validation", params),
        ("results", "serialization", results),
    ]
    schemas, definitions = TypeAdapter.json_schemas(inputs, ref_template=REF)
    return (
        schemas[("params", "validation")]["prefixItems"],
        schemas[("results", "serialization")]["prefixItems"],
        definitions.get("$defs", {}),
    )


def openapi_document(table: OperationTable) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the routes serving ``table``."""
    params_of, result_of, definitions = _schemas(table)
    components: dict[str, Any] = dict(definitions)
    components.update(_error_schemas())
    security: list[dict[str, list[str]]] = [{"bearer": []}, {"token": []}]
    paths: dict[str, Any] = {}
    results: list[dict[str, Any]] = []
    for operation, params, result in zip(table, params_of, result_of, strict=True):
        if result not in results:
            results.append(result)
        description = operation.description or operation.summary
        if operation.may_command:
            description += " Commands an outstation: needs --allow-control."
        paths[f"/api/{operation.name}"] = {
            "post": {
                "operationId": operation.name,
                "summary": operation.summary,
                "description": description,
                "tags": ["operations"],
                "security": security,
                "requestBody": {
                    "required": True,  # {} for no parameters
                    "content": {JSON: {"schema": params}},
                },
                "responses": _responses(_envelope(result, {"type": "null"}), _statuses(operation)),
            }
        }
    components["Message"] = {
        "type": "object",
        "required": ["op"],
        "properties": {
            "id": {
                "type": ["string", "number", "null"],
                "maxLength": 256,
                "description": "Repeated in the answer",
            },
            "op": {"type": "string", "enum": table.names},
            "outstation": {"type": ["string", "null"]},
            "params": {
                "type": ["object", "null"],
                "description": "The operation's parameters (null or left out: none)",
            },
        },
        "additionalProperties": False,
    }
    paths["/api"] = {
        "post": {
            "operationId": "message",
            "summary": "Any operation as one message: id, op, outstation, params",
            "tags": ["operations"],
            "security": security,
            "requestBody": {"required": True, "content": {JSON: {"schema": _ref("Message")}}},
            "responses": _responses(
                _envelope({"anyOf": results}, {}), (*OPERATION_ERRORS, *REFUSALS)
            ),
        }
    }
    paths["/events"] = {
        "get": {
            "operationId": "events",
            "summary": "Server-sent events: frame, exchange, unsolicited, connection, "
            "outstations, lost",
            "description": "Each event's data is a JSON object. A subscriber 10,000 updates "
            "behind receives lost {dropped} and stays subscribed; a stream that accepts no "
            "write for 60 s is cut; keep-alive comments keep a quiet stream open.",
            "tags": ["events"],
            "security": security,
            "parameters": [
                {
                    "name": "token",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string"},
                    "description": "The token, where a header cannot be set",
                }
            ],
            "responses": {
                "200": {
                    "description": "The stream",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
                "401": _json(_ref("Refusal"), STATUS_TEXT[401]),
                "403": _json(_ref("Refusal"), STATUS_TEXT[FOREIGN]),
            },
        }
    }
    paths["/openapi.json"] = {
        "get": {
            "operationId": "openapi",
            "summary": "This document",
            "security": [],
            "responses": {"200": _json({"type": "object"}, "The OpenAPI document")},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "gridwire operations API",
            "version": __version__,
            "description": "The operations of a DNP3 (IEEE 1815) master as JSON. Every "
            "answer under /api is an envelope {id, ok, result | error {kind, message}}.",
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "token": {"type": "apiKey", "in": "query", "name": "token"},
            },
        },
    }
