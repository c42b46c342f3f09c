"""The tasks in force for one outstation, as a pydantic model whose fields are made from the
list of tasks (:data:`gridwire.master.tasks.catalogue.TASKS`): one field per task, in its
order, of the task's ``setting`` type, checked by its ``validate``.

A field's default is the task's ``default``, except that a task that writes defaults to
``off``: :meth:`TaskSettingsBase.defaults` turns the writing tasks on when control is allowed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model

from gridwire.errors import BadParameter, UnknownName
from gridwire.master import gate
from gridwire.master.tasks.catalogue import TASK_NAMES, TASKS, WRITING_TASKS


class TaskSettingsBase(BaseModel):
    """What the settings of tasks do; :data:`TaskSettings` adds a field per task."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def defaults(cls, allow_control: bool) -> TaskSettingsBase:
        """Every task at its default: the writing tasks on only when control is allowed."""
        return cls.model_validate(
            {t.name: t.default if allow_control or not t.writes else t.off for t in TASKS}
        )

    @classmethod
    def none(cls) -> TaskSettingsBase:
        """Every task off (what ``manual`` starts from)."""
        return cls.model_validate({t.name: t.off for t in TASKS})

    def enabled(self, name: str) -> bool:
        """Whether task ``name`` is on."""
        return bool(getattr(self, name))

    def value(self, name: str) -> Any:
        """The setting of task ``name``."""
        return getattr(self, name)

    def merged(self, changes: dict[str, Any], allow_control: bool) -> TaskSettingsBase:
        """These tasks with ``changes`` laid over them.

        RequestError for an unknown task or a value of the wrong kind; NotAllowed for turning
        on a writing task without control (turning one off is always accepted).
        """
        unknown = sorted(set(changes) - set(TASK_NAMES))
        if unknown:
            raise UnknownName(f"unknown task {', '.join(unknown)} (tasks: {', '.join(TASK_NAMES)})")
        for name in sorted(WRITING_TASKS & set(changes)):
            if changes[name] is True and not allow_control:
                raise gate.refusal()
        try:
            return type(self).model_validate({**self.model_dump(), **changes}, strict=True)
        except ValidationError as exc:
            raise BadParameter(f"tasks: {first_error(exc)}") from None


def first_error(exc: ValidationError) -> str:
    """The first error of ``exc`` as text, naming where it is."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}" if where else str(err["msg"])


def _field(default: Any) -> Any:
    """A field's default: a list is made anew for each model (and left out of the schema,
    as a default factory is)."""
    if isinstance(default, list):
        return Field(default_factory=default.copy)
    return Field(default=default)


if TYPE_CHECKING:
    TaskSettings = TaskSettingsBase
else:
    TaskSettings = create_model(
        "TaskSettings",
        __base__=TaskSettingsBase,
        __module__=__name__,
        __doc__="The tasks in force for one outstation.",
        **{
            t.name: (
                Annotated[t.setting, AfterValidator(t.validate)],
                _field(t.off if t.writes else t.default),
            )
            for t in TASKS
        },
    )
