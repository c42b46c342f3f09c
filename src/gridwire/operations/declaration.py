"""The declaration of an operation, and the table of them the service is built from.

An :class:`Operation` says everything about one operation once: its name, its parameter model
(a pydantic model; ``outstation`` among its fields when it addresses one), the type of its
result (a record the handler returns; its JSON Schema is derived for OpenAPI), whether it
commands an outstation (a constant, or a predicate over the validated parameters), a summary
and a description, and the handler that carries it out by calling the master.

From the table alone come the HTTP routes ``POST /api/<name>``, the ``POST /api`` message
form, the line service, the ``not_allowed`` gate and the command log, the OpenAPI document and
the command-line help. Adding an operation is adding a declaration; nothing else names one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gridwire.master.settings import NAME_LENGTH

if TYPE_CHECKING:
    from gridwire.operations.context import Context

_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$")

Target = Literal["required", "optional", "none"]


UNKNOWN_NAMED = 4
"""Unknown parameters named in a refusal at most; the others are dropped unvalidated."""


class Params(BaseModel):
    """Base of every parameter model: unknown parameters are refused. Only the first
    :data:`UNKNOWN_NAMED` reach validation, so that thousands cost no more than a few."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _few_unknown(cls, data: Any) -> Any:
        fields = cls.model_fields
        if not isinstance(data, dict) or len(data) <= len(fields) + UNKNOWN_NAMED:
            return data
        unknown = [key for key in data if key not in fields]
        named = set(unknown[:UNKNOWN_NAMED])
        return {key: value for key, value in data.items() if key in fields or key in named}


class OutstationParams(Params):
    """Parameters of an operation that addresses one outstation."""

    outstation: str = Field(
        min_length=1,
        max_length=NAME_LENGTH,
        description="The outstation, by the name it was added",
    )


P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Operation(Generic[P]):
    """One operation of the service.

    ``handler(context, params)`` returns the result, or an awaitable of it; it raises
    :class:`gridwire.errors.OperationError` subclasses for answers with ``ok`` false.
    ``commands`` is True when the operation always commands an outstation, or a predicate
    over the validated parameters when that depends on them (``request`` by function code).
    ``check(context, params)``, when given, checks the parameters against what the service
    knows (an outstation's point map, say) before the ``not_allowed`` gate, so that a bad
    command is a request error even from a service that may not command.
    """

    name: str
    params: type[P]
    result: Any
    handler: Callable[[Context, P], object]
    summary: str
    description: str = ""
    commands: bool | Callable[[P], bool] = False
    check: Callable[[Context, P], object] | None = None

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"operation name {self.name!r} is not lower_case(.lower_case)")
        if not self.summary.strip():
            raise ValueError(f"operation {self.name} has no summary")

    @property
    def target(self) -> Target:
        """Whether the operation names an outstation: required, optional or not at all."""
        field = self.params.model_fields.get("outstation")
        if field is None:
            return "none"
        return "required" if field.is_required() else "optional"

    @property
    def may_command(self) -> bool:
        """Whether some parameters make this operation command an outstation."""
        return self.commands is not False

    def commands_with(self, params: P) -> bool:
        """Whether the operation, given these parameters, commands an outstation."""
        if isinstance(self.commands, bool):
            return self.commands
        return self.commands(params)


def declare(
    name: str,
    *,
    params: type[P],
    result: Any,
    handler: Callable[[Context, P], object],
    summary: str,
    description: str = "",
    commands: bool | Callable[[P], bool] = False,
    check: Callable[[Context, P], object] | None = None,
) -> Operation[Any]:
    """An :class:`Operation`, with its handler and predicate checked against its parameter
    model (a table holds ``Operation[Any]``; declaring through here keeps the handler's
    parameters typed as the model they are)."""
    return Operation(name, params, result, handler, summary, description, commands, check)


class OperationTable:
    """Operations by name, in the order declared."""

    def __init__(self, *groups: Iterable[Operation[Any]]) -> None:
        self._operations: dict[str, Operation[Any]] = {}
        for group in groups:
            for operation in group:
                if operation.name in self._operations:
                    raise ValueError(f"operation {operation.name} is declared twice")
                self._operations[operation.name] = operation

    def __iter__(self) -> Iterator[Operation[Any]]:
        return iter(self._operations.values())

    def __len__(self) -> int:
        return len(self._operations)

    def __contains__(self, name: object) -> bool:
        return name in self._operations

    def get(self, name: str) -> Operation[Any] | None:
        return self._operations.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._operations)

    def extended(self, *groups: Iterable[Operation[Any]]) -> OperationTable:
        """A new table: these operations and the given ones."""
        return OperationTable(self._operations.values(), *groups)

    def help_text(self) -> str:
        """The operations and their summaries, one a line (for ``--help``); those that
        command an outstation (with some parameters or always) are marked."""
        column = max((len(op.name) for op in self), default=0) + 2
        lines = [
            "operations (* commands an outstation, ~ does with some parameters: both need "
            "--allow-control then):"
        ]
        for op in self:
            mark = " " if not op.may_command else "*" if op.commands is True else "~"
            lines.append(f" {mark}{op.name.ljust(column)}{op.summary}")
        return "\n".join(lines)
