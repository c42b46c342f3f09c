"""The command log: one structured record for each command, written once (D131).

Whoever carries out a command first opens its record with :func:`command`: the service for a
message, a DER procedure or the master's facade for a Python caller. A command opened inside
another (the master's ``operate`` under ``der.write``, ``der.write`` under a message) adds no
record of its own: the outermost one is written, once, when it ends, on the logger
``gridwire.commands``: at INFO with its result, or at WARNING when the gate refused it. The
:class:`LogRecord` carries it as ``record.command`` (a :class:`Command`) for handlers that want
the fields rather than the line.

An evaluation names the check it runs with :func:`sent_by_check`; a command opened while one is
named carries that check's id.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Final

from gridwire.errors import NotAllowed, OperationError

log = logging.getLogger("gridwire.commands")

CANCELLED: Final = "cancelled (what was sent stays sent)"
RESULT_LENGTH: Final = 4000
"""Characters of a command's result kept in its record."""

_check: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "gridwire_command_check", default=None
)
_open: contextvars.ContextVar[Command | None] = contextvars.ContextVar(
    "gridwire_command_open", default=None
)


@dataclass(slots=True)
class Command:
    """One command: what was asked (``operation`` on ``outstation`` with ``points``, the
    points and values or the parameters, JSON-able), what came of it, and the evaluation
    check that sent it (None when none did). ``refused`` when the gate refused it."""

    operation: str
    outstation: str | None
    points: object
    check: str | None = None
    result: str | None = None
    refused: bool = False

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def line(self) -> str:
        """The record as one line of text (the outstation's name quoted when it holds a
        line break or another control character, so no line can be forged)."""
        on = ""
        if self.outstation:
            name = self.outstation
            on = f" on {name if name.isprintable() else repr(name)}"
        points = json.dumps(self.points, default=str, separators=(",", ":"), ensure_ascii=False)
        what = f"{self.operation}{on} {points}: {self.result}"
        if self.refused:
            return f"refused {what}"
        if self.check is not None:
            return f"command of evaluation check {self.check}: {what}"
        return f"command {what}"


@contextmanager
def sent_by_check(check: str) -> Iterator[None]:
    """Commands opened inside this block were sent by evaluation check ``check``."""
    token = _check.set(check)
    try:
        yield
    finally:
        _check.reset(token)


@contextmanager
def command(operation: str, outstation: str | None, points: object) -> Iterator[Command]:
    """Open the record of a command; set its ``result`` before the block ends. The record is
    written when the block ends, unless another command is open around it (then the one
    yielded is not written). A NotAllowed leaving the block writes it as refused, another of
    our errors as its result, a cancellation as :data:`CANCELLED`."""
    if _open.get() is not None:
        yield Command(operation, outstation, points)
        return
    record = Command(operation, outstation, points, _check.get())
    token = _open.set(record)
    try:
        yield record
    except NotAllowed as exc:
        record.refused, record.result = True, str(exc)
        raise
    except OperationError as exc:
        record.result = f"error {exc.kind}: {exc}"
        raise
    except asyncio.CancelledError:
        record.result = CANCELLED
        raise
    except Exception as exc:
        record.result = f"failed: {type(exc).__name__}: {exc}"
        raise
    finally:
        _open.reset(token)
        write(record)


def write(record: Command) -> None:
    """Log ``record``: at WARNING when refused, else at INFO."""
    if record.result is not None and len(record.result) > RESULT_LENGTH:
        record.result = record.result[:RESULT_LENGTH]
    level = logging.WARNING if record.refused else logging.INFO
    log.log(level, "%s", record.line(), extra={"command": record})
