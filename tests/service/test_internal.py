"""Typed errors (D132): the core raises errors named for what went wrong, the service maps
each to its kind in one place, and an unexpected exception in an operation (a bug) is
answered as kind internal (HTTP 500) naming no internals, its traceback logged once."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel, ValidationError

from gridwire.der.errors import MapError, UnknownPoint
from gridwire.derops.errors import NotConfigured
from gridwire.devprofile.errors import RefusedDocument
from gridwire.errors import (
    BadParameter,
    Conflict,
    ConnectionFailed,
    InternalError,
    NotAllowed,
    OperationError,
    RequestError,
    UnknownName,
)
from gridwire.master.errors import UnknownOutstation
from gridwire.operations.context import Context
from gridwire.operations.declaration import OperationTable, Params, declare
from gridwire.operations.dispatch import error_answer, operation_error
from gridwire.operations.table import default_table
from gridwire.transports.http_app import STATUS_BY_KIND
from tests.service.harness import HttpTransport, LineTransport, error, running_service

ANSWER = "test.boom failed: an internal error (its details are in the service's log)"


def _boom(context: Context, params: Params) -> dict[str, int]:
    return {"never": 1 // len(params.model_fields_set)}  # none set: ZeroDivisionError


def boom_table() -> OperationTable:
    boom = declare(
        "test.boom",
        params=Params,
        result=dict,
        handler=_boom,
        summary="Fails as a bug would",
    )
    return default_table().extended([boom])


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.exc_info is not None]


def _names_no_internals(message: str) -> None:
    assert message == ANSWER
    for internal in ("ZeroDivisionError", "division", ".py", "_boom", "Traceback"):
        assert internal not in message


async def test_a_bug_in_an_operation_is_an_internal_error_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running_service(table=boom_table()) as running:
        async with HttpTransport(running) as http:
            caplog.clear()
            # HttpTransport checks the answer against the OpenAPI document (500 listed).
            status, envelope = await http.post("test.boom")
            assert status == 500
            _names_no_internals(error(envelope, "internal"))
            logged = _tracebacks(caplog)
            assert len(logged) == 1, [r.getMessage() for r in logged]
            assert logged[0].getMessage() == "test.boom failed unexpectedly"
            assert logged[0].exc_info is not None
            assert logged[0].exc_info[0] is ZeroDivisionError
            assert "_boom" in caplog.text  # the traceback names the handler
            # The service is still there and answers the next message.
            assert (await http.post("status"))[0] == 200
        async with LineTransport(running) as line:
            caplog.clear()
            answer = await line.message({"id": "b1", "op": "test.boom"})
            assert answer["id"] == "b1"
            _names_no_internals(error(answer, "internal"))
            logged = _tracebacks(caplog)
            assert len(logged) == 1 and logged[0].getMessage() == "test.boom failed unexpectedly"
            assert (await line.call("status"))["ok"] is True


def _validation_error() -> ValidationError:
    class Model(BaseModel):
        n: int

    try:
        Model.model_validate({"n": "x"}, strict=True)
    except ValidationError as exc:
        return exc
    raise AssertionError("validated")


@pytest.mark.parametrize(
    ("raised", "kind"),
    [
        (UnknownOutstation("unknown outstation 'x'"), "request"),
        (UnknownPoint("no point of the profile is named 'x'"), "request"),
        (UnknownName("unknown task x"), "request"),
        (BadParameter("wait -1 is negative"), "request"),
        (Conflict("outstation 'x' was already added"), "request"),
        (RefusedDocument("Device Profile document refused: it is not XML"), "request"),
        (NotConfigured("outstation 'x' was given no profile"), "request"),
        (RequestError("unknown operation 'x'"), "request"),
        (ConnectionFailed("no connection"), "connection"),
        (NotAllowed("op commands the outstation"), "not_allowed"),
    ],
)
def test_the_core_errors_map_to_their_kinds(raised: OperationError, kind: str) -> None:
    # For a Python user the kind is on the class, and every request error is a RequestError.
    assert raised.kind == kind
    assert isinstance(raised, RequestError) == (kind == "request")
    mapped = operation_error("op", raised)
    assert mapped is raised  # the message stays word for word
    answer = error_answer(mapped, "i")
    assert answer.kind == kind
    assert STATUS_BY_KIND[kind] == {"request": 400, "connection": 503, "not_allowed": 403}[kind]


def test_our_errors_without_a_kind_are_request_errors_and_anything_else_internal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    mapped = operation_error("op", MapError("map.json: point AO9 has no name"))
    assert type(mapped) is RequestError
    assert str(mapped) == "op: map.json: point AO9 has no name"
    validated = operation_error("op", _validation_error())
    assert type(validated) is RequestError and str(validated).startswith("op: n: ")
    assert not _tracebacks(caplog)  # not bugs: nothing logged
    try:
        raise KeyError("secret")
    except KeyError as exc:
        bug = operation_error("op", exc)
    assert isinstance(bug, InternalError) and bug.kind == "internal"
    assert str(bug) == "op failed: an internal error (its details are in the service's log)"
    assert STATUS_BY_KIND["internal"] == 500
    assert len(_tracebacks(caplog)) == 1
