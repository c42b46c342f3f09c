"""From a message to its envelope: find the operation, validate its parameters, apply the
``not_allowed`` gate, call the handler, and write the answer as JSON.

It never raises (cancellation aside): every failure is an envelope with ``ok`` false and
``error.kind`` request, connection, not_allowed or internal. :func:`operation_error` is the one
place an exception becomes a kind (D132): the core's errors carry theirs (each subclasses
RequestError, ConnectionFailed or NotAllowed); our other errors and a model validated inside
the master are kind request; anything else is a bug, logged with its traceback once and
answered as kind internal, its message naming no internals. A message's ``id`` must
be a string (up to 256 characters), a number or null, or nothing runs: it is answered with
a request error and id null, so that its answer can always be written.

Every operation that commands an outstation is logged once, as one command record
(:mod:`gridwire.master.command_log`): at INFO with its parameters (the points and values) and
its result; one refused for want of ``--allow-control`` at WARNING.
"""

from __future__ import annotations

import contextvars
import difflib
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel, ValidationError

from gridwire.errors import GridwireError, InternalError, OperationError, RequestError
from gridwire.master import command_log, gate
from gridwire.master.records import Exchange
from gridwire.operations.context import Context
from gridwire.operations.declaration import Operation, OperationTable
from gridwire.operations.early_json import EarlyObjects, observing
from gridwire.operations.encoding import ListParts, dumps, encode_parts, is_big
from gridwire.operations.limits import ID_LENGTH

log = logging.getLogger("gridwire.service")
NEAR_LENGTH = 64  # a longer unknown name is not compared (difflib is linear in it)

MESSAGE_FIELDS = ("id", "op", "outstation", "params")
DESCRIBED_ERRORS = 32  # validation errors looked at to name the parameter; beyond, counted


@dataclass(frozen=True, slots=True)
class Answer:
    """An envelope as JSON, and the kind of its error (None when ``ok``). ``streamed``: the
    envelope went to the caller's ``stream`` as it was made, and ``body`` is empty."""

    body: bytes
    kind: str | None = None
    streamed: bool = False

    @property
    def ok(self) -> bool:
        return self.kind is None


def error_body(kind: str, message: str, ident: Any = None) -> bytes:
    """The envelope of an error, as JSON."""
    return dumps({"id": ident, "ok": False, "error": {"kind": kind, "message": message}})


def error_answer(error: OperationError, ident: Any = None) -> Answer:
    return Answer(error_body(error.kind, str(error), ident), error.kind)


class Dispatcher:
    """Carries out messages against one table and one context."""

    def __init__(self, table: OperationTable, context: Context) -> None:
        self.table = table
        self.context = context

    async def message(self, message: object, stream: Stream | None = None) -> Answer:
        """The message form: ``{"id", "op", "outstation", "params"}`` (``POST /api`` and
        each line of the line service).

        With ``stream``, a long answer that commands nothing (a scan's, a read's) is handed to
        it a slice at a time as it is written (D222), and the Answer returned says so; should
        writing it fail half way, :class:`AnswerCut` is raised (what was streamed cannot be
        taken back: the caller ends the connection)."""
        ident = message.get("id") if isinstance(message, dict) else None
        problem = unusable_id(ident)
        if problem is not None:
            return error_answer(RequestError(problem))
        try:
            name, params, outstation = _unpack(message)
            operation = self._operation(name)
            params = _with_outstation(operation, params, outstation)
        except OperationError as exc:
            return error_answer(exc, ident)
        token = _stream.set(stream)
        try:
            return await self._run(operation, params, ident)
        finally:
            _stream.reset(token)

    async def call(self, name: str, params: object) -> Answer:
        """The plain form: the operation named by the route, ``params`` the body."""
        try:
            operation = self._operation(name)
            if not isinstance(params, dict):
                raise RequestError(f"{name}: the body must be a JSON object of parameters")
        except OperationError as exc:
            return error_answer(exc)
        return await self._run(operation, params, None)

    def _operation(self, name: str) -> Operation[Any]:
        operation = self.table.get(name)
        if operation is None:
            raise RequestError(f"unknown operation {name!r}")
        return operation

    async def _run(self, operation: Operation[Any], data: dict[str, Any], ident: Any) -> Answer:
        try:
            params = _validate(operation, data)
            if operation.check is not None:
                operation.check(self.context, params)
            commands = operation.commands_with(params)
        except Exception as exc:
            return _failed(operation, exc, ident)
        if not commands:
            answer, _ = await self._carry_out(operation, params, ident)
            return answer  # its result as text is made only for a command's record
        # The gate of the operation table's commands flag, and the command's one record.
        outstation = getattr(params, "outstation", None)
        points = params.model_dump(mode="json", exclude={"outstation"})
        _stream.set(None)  # a command's answer is whole: its record keeps its parts
        with command_log.command(operation.name, outstation, points) as record:
            if not self.context.allow_control:
                refusal = gate.refusal()
                record.refused, record.result = True, str(refusal)
                return error_answer(refusal, ident)
            answer, result = await self._carry_out(operation, params, ident)
            record.result = result if isinstance(result, str) else _result_text(result)
            return answer

    async def _carry_out(
        self,
        operation: Operation[Any],
        params: BaseModel,
        ident: Any,
    ) -> tuple[Answer, str | list[bytes | memoryview]]:
        """Call the handler: its answer, and what it came to as a command record's result
        (an error's text, or the parts of the result's JSON, made text only when a record
        needs it). A long answer goes to the message's stream, if it has one. An exchange's
        objects are written as its fragments arrive (D235)."""
        early = EarlyObjects() if operation.result is Exchange else None
        with observing(early):
            return await self._answered(operation, params, ident, early)

    async def _answered(
        self, operation: Operation[Any], params: BaseModel, ident: Any, early: ListParts | None
    ) -> tuple[Answer, str | list[bytes | memoryview]]:
        try:
            outcome = operation.handler(self.context, params)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:  # a cancellation goes on up, to the record's block
            answer = _failed(operation, exc, ident)
            return answer, _error_text(answer)
        head = b"".join([b'{"id":', dumps(ident), b',"ok":true,"result":'])
        stream = _stream.get()
        streaming = _Streaming(head, stream) if stream is not None and is_big(outcome) else None
        try:
            flush = None if streaming is None else streaming.flush
            parts = await encode_parts(outcome, flush, early)
        except Exception as exc:
            log.exception("%s: its result could not be written as JSON", operation.name)
            if streaming is not None and streaming.started:
                raise AnswerCut(f"{operation.name}: its answer was cut half way") from exc
            message = (
                f"{operation.name} was carried out, but its result could not be written as "
                f"JSON: {type(exc).__name__}: {exc}"
            )
            return error_answer(RequestError(message), ident), message
        if streaming is not None:
            streaming.flush([*parts, b"}"])
            return Answer(b"", streamed=True), parts
        body = b"".join([head, *parts, b"}"])
        return Answer(body), parts


_stream: contextvars.ContextVar[Stream | None] = contextvars.ContextVar(
    "gridwire_answer_stream", default=None
)
"""The stream of the message being carried out (set by Dispatcher.message, read where its
answer is written: subclasses keep _run's and _carry_out's signatures)."""


class AnswerCut(Exception):
    """A streamed answer could not be written to its end (see :meth:`Dispatcher.message`)."""


Stream = Callable[[bytes], None]
"""Where a streamed answer's octets go, in order (a transport's write)."""


class _Streaming:
    """Hands an answer to its stream one slice at a time, the envelope's head first."""

    __slots__ = ("head", "started", "stream")

    def __init__(self, head: bytes, stream: Stream) -> None:
        self.head = head
        self.stream = stream
        self.started = False

    def flush(self, parts: list[bytes | memoryview]) -> None:
        if not self.started:
            self.started = True
            self.stream(b"".join([self.head, *parts]))
        else:
            self.stream(b"".join(parts))


def _result_text(parts: list[bytes | memoryview]) -> str:
    return b"".join(parts).decode(errors="replace")


def operation_error(name: str, exc: Exception) -> OperationError:
    """The error operation ``name`` answers with for ``exc``, whose kind the envelope names.

    Ours carry their kind; our errors without one (a bad map file, a protocol encoding
    error...) and a model validated inside the master are kind request; anything else is a
    bug: its traceback is logged here, once, and the answer names no exception or file."""
    if isinstance(exc, OperationError):
        return exc
    if isinstance(exc, GridwireError | ValidationError):
        return RequestError(f"{name}: {_text(exc)}")
    log.error("%s failed unexpectedly", name, exc_info=exc)
    return InternalError(f"{name} failed: an internal error (its details are in the service's log)")


def unusable_id(ident: object) -> str | None:
    """Why ``ident`` cannot be a message's id, or None: an id is a string of up to
    ID_LENGTH characters, a number that JSON writes back as it came, or null."""
    if ident is None or isinstance(ident, float):
        return None
    if isinstance(ident, int) and not isinstance(ident, bool):
        if -(1 << 63) <= ident < (1 << 64):
            return None
        return "message field id is a number beyond 64 bits"
    if isinstance(ident, str):
        if len(ident) > ID_LENGTH:
            return f"message field id is longer than {ID_LENGTH} characters"
        try:
            ident.encode()
        except UnicodeEncodeError:
            return "message field id is not valid text"
        return None
    return "message field id must be a string, a number or null"


def _unpack(message: object) -> tuple[str, dict[str, Any], object]:
    if not isinstance(message, dict):
        raise RequestError("a message is a JSON object: {id, op, outstation, params}")
    unknown = sorted(set(message) - set(MESSAGE_FIELDS))
    if unknown:
        raise RequestError(
            f"unknown message field {', '.join(unknown)} (fields: id, op, outstation, params)"
        )
    name = message.get("op")
    if not isinstance(name, str):
        raise RequestError("message field op (the operation's name) must be a string")
    params = message.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RequestError("message field params must be a JSON object")
    return name, params, message.get("outstation")


def _with_outstation(
    operation: Operation[Any], params: dict[str, Any], outstation: object
) -> dict[str, Any]:
    """The message's ``outstation`` put among the parameters."""
    if outstation is None:
        return params
    if not isinstance(outstation, str):
        raise RequestError("message field outstation must be a string")
    if operation.target == "none":
        raise RequestError(f"{operation.name} takes no outstation")
    if "outstation" in params and params["outstation"] != outstation:
        raise RequestError("outstation is given twice, as two different names")
    return {**params, "outstation": outstation}


def _validate(operation: Operation[Any], data: dict[str, Any]) -> BaseModel:
    try:
        params: BaseModel = operation.params.model_validate(data, strict=True)
        return params
    except ValidationError as exc:
        count = exc.error_count()
        if count > DESCRIBED_ERRORS:
            # Listing them would cost more than the rest of the message (some 6 us each).
            raise RequestError(
                f"{operation.name}: {count} parameters or items are unknown or of the wrong kind"
            ) from None
        raise RequestError(f"{operation.name}: {describe(exc, data, operation.params)}") from None


def describe(exc: ValidationError, data: object, model: type[BaseModel] | None = None) -> str:
    """A validation error as one line naming the parameter: the part of each error's location
    that exists in the input (pydantic adds the member of a union it tried), plus the name
    of a missing parameter."""
    errors = exc.errors()
    # A misspelled parameter is both unknown and missing: its own name says more.
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    where = _where(first["loc"], data, first["type"])
    messages = []
    for err in errors:
        if _where(err["loc"], data, err["type"]) == where and err["msg"] not in messages:
            messages.append(err["msg"])
    text = "; or ".join(messages[:4])
    if first["type"] == "extra_forbidden":
        return f"unknown parameter {where}{_near(first['loc'], model)}"
    if first["type"] == "missing":
        return f"parameter {where} is missing"
    return f"parameter {where}: {text}" if where else text


def _near(loc: tuple[int | str, ...], model: type[BaseModel] | None) -> str:
    """The near match of an unknown parameter among those ``model`` has at that place,
    as " (did you mean outstation?)" for ``outstaton``; else nothing."""
    for part in loc[:-1]:
        field = model.model_fields.get(str(part)) if model is not None else None
        annotation = field.annotation if field is not None else None
        model = (
            annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel)
            else None
        )
    if model is None or len(str(loc[-1])) > NEAR_LENGTH:  # difflib indexes the whole name
        return ""
    names = [f.alias or name for name, f in model.model_fields.items()]
    near = difflib.get_close_matches(str(loc[-1]), names, n=1)
    return f" (did you mean {near[0]}?)" if near else ""


def _where(loc: tuple[int | str, ...], data: object, kind: str) -> str:
    path: list[str] = []
    node = data
    for part in loc:
        step = _step(node, part)
        if step is not None:
            node = step[0]
        elif kind in ("missing", "extra_forbidden") and isinstance(node, dict):
            path.append(str(part))
            break
        else:
            break
        path.append(str(part))
    return ".".join(path)


def _step(node: object, part: int | str) -> tuple[object] | None:
    """The item ``part`` of ``node`` (in a one-tuple), or None when the input has none."""
    if isinstance(node, dict) and part in node:
        return (node[part],)
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return (node[part],)
    return None


def _failed(operation: Operation[Any], exc: Exception, ident: Any) -> Answer:
    """The answer to an operation that raised ``exc`` (its kind by :func:`operation_error`)."""
    return error_answer(operation_error(operation.name, exc), ident)


def _error_text(answer: Answer) -> str:
    """An error answer as a command record's result: ``error <kind>: <message>``."""
    error = orjson.loads(answer.body)["error"]
    return f"error {error['kind']}: {error['message']}"


def _text(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return f"{where}: {err['msg']}" if where else str(err["msg"])
    return str(exc)
