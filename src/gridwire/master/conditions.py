"""What ``wait_for`` waits for, and how each condition is judged; nothing here is sent.

Three conditions, exactly one per wait (``wait_for``'s parameters name one):

- :class:`ValueCondition` holds once the point (``type``, ``index``) has been reported, and,
  when one of ``equals``, ``tolerance`` (with ``value``), ``at_least``, ``at_most`` is given,
  once its latest value satisfies it;
- :class:`EventCondition` holds once an event arrives after the wait began, of that type and
  index when they are given;
- :class:`IndicationCondition` holds once the indication is set in the last response (clear
  when ``set`` is false). Before any response has arrived there is no last response, and
  neither form holds.

:class:`Watch` judges one condition against the store, the event log and the last
indications; :func:`wait` is the loop the facade runs: judge, then sleep until something may
have changed or the time runs out.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import BadParameter
from gridwire.master.limits import LONGEST_WAIT
from gridwire.master.records import StoredValue, WaitResult
from gridwire.master.store import EventLog, ValueStore
from gridwire.process.clock import Clock

PointType = Literal["bi", "dbi", "bo", "counter", "frozen", "ai", "ao"]

_COMPARISONS = ("equals", "tolerance", "at_least", "at_most")


class ValueCondition(BaseModel):
    """A point reported, optionally with its value satisfying one comparison."""

    model_config = ConfigDict(extra="forbid")

    type: PointType
    index: int = Field(ge=0, le=0xFFFF)
    equals: bool | int | float | str | None = None
    tolerance: float | None = Field(default=None, ge=0)
    value: float | None = None
    at_least: float | None = None
    at_most: float | None = None

    @model_validator(mode="after")
    def _one_comparison(self) -> ValueCondition:
        given = [name for name in _COMPARISONS if getattr(self, name) is not None]
        if len(given) > 1:
            raise ValueError(f"at most one of {', '.join(_COMPARISONS)}; given {', '.join(given)}")
        if self.tolerance is not None and self.value is None:
            raise ValueError("tolerance needs the value to be within it of")
        if self.value is not None and self.tolerance is None:
            raise ValueError("value goes with tolerance (use equals for an exact value)")
        return self

    def satisfied_by(self, value: object) -> bool:
        """Whether a reported value satisfies the comparison (True when none is given)."""
        if self.equals is not None:
            return _equal(value, self.equals)
        number = _number(value)
        if self.tolerance is not None and self.value is not None:
            return number is not None and abs(number - self.value) <= self.tolerance
        if self.at_least is not None:
            return number is not None and number >= self.at_least
        if self.at_most is not None:
            return number is not None and number <= self.at_most
        return True


class EventCondition(BaseModel):
    """An event after the wait began; of this type and index when given."""

    model_config = ConfigDict(extra="forbid")

    type: PointType | None = None
    index: int | None = Field(default=None, ge=0, le=0xFFFF)

    def matches(self, obj: DnpObject) -> bool:
        if self.type is not None and obj.type != self.type:
            return False
        return self.index is None or obj.index == self.index


class IndicationCondition(BaseModel):
    """An internal indication set (or clear, with ``set`` false) in the last response."""

    model_config = ConfigDict(extra="forbid")

    name: str
    set: bool = True

    @field_validator("name")
    @classmethod
    def _known(cls, name: str) -> str:
        upper = name.strip().upper()
        if upper not in IIN.__members__:
            known = ", ".join(IIN.__members__)
            raise ValueError(f"unknown indication {name!r} (one of {known})")
        return upper

    @property
    def flag(self) -> IIN:
        return IIN[self.name]


Condition = ValueCondition | EventCondition | IndicationCondition


class WaitParameters(BaseModel):
    """The parameters of ``wait_for`` (besides the outstation): a timeout in seconds and
    exactly one condition."""

    model_config = ConfigDict(extra="forbid")

    timeout: float = Field(ge=0, le=LONGEST_WAIT)
    value: ValueCondition | None = None
    event: EventCondition | None = None
    indication: IndicationCondition | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> WaitParameters:
        one_condition(self.value, self.event, self.indication)
        return self

    @property
    def condition(self) -> Condition:
        return one_condition(self.value, self.event, self.indication)


def one_condition(
    value: ValueCondition | None,
    event: EventCondition | None,
    indication: IndicationCondition | None,
) -> Condition:
    """The one condition given; ValueError (a validation error in a model, a RequestError
    from :func:`condition_from`) when none or several are."""
    given = [c for c in (value, event, indication) if c is not None]
    if len(given) != 1:
        raise ValueError(f"exactly one of value, event, indication is needed; {len(given)} given")
    return given[0]


def condition_from(
    value: ValueCondition | dict[str, object] | None = None,
    event: EventCondition | dict[str, object] | None = None,
    indication: IndicationCondition | dict[str, object] | None = None,
) -> Condition:
    """The condition of a Python call, validated: RequestError naming what is wrong."""
    try:
        parsed_value = ValueCondition.model_validate(value) if value is not None else None
        parsed_event = EventCondition.model_validate(event) if event is not None else None
        parsed_indication = (
            IndicationCondition.model_validate(indication) if indication is not None else None
        )
        return one_condition(parsed_value, parsed_event, parsed_indication)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise BadParameter(f"wait_for: {where + ': ' if where else ''}{err['msg']}") from None
    except ValueError as exc:
        raise BadParameter(f"wait_for: {exc}") from None


class Watch:
    """One condition judged against an outstation's store, event log and last indications.

    Created when the wait begins: an event condition counts only events logged after that
    moment (the log's running sequence number).
    """

    __slots__ = ("_after", "condition", "events", "log", "point", "store")

    def __init__(self, condition: Condition, store: ValueStore, log: EventLog) -> None:
        self.condition = condition
        self.store = store
        self.log = log
        self._after = log.mark()
        self.point: StoredValue | None = None
        self.events: list[DnpObject] = []

    def holds(self, indications: IIN | None, now: float | None = None) -> bool:
        """Judge the condition now; ``indications`` are the last response's (None before
        any response); ``now`` (monotonic seconds) dates the point's age."""
        condition = self.condition
        if isinstance(condition, ValueCondition):
            self.point = self.store.get(condition.type, condition.index, now)
            return self.point is not None and condition.satisfied_by(self.point.value)
        if isinstance(condition, EventCondition):
            self.events = [obj for obj in self.log.after(self._after) if condition.matches(obj)]
            return bool(self.events)
        if indications is None:
            return False
        is_set = bool(indications & condition.flag)
        return is_set is condition.set

    def result(self, held: bool, elapsed_ms: float, indications: IIN | None) -> WaitResult:
        return WaitResult(
            held=held,
            elapsed_ms=elapsed_ms,
            indications=indications.names if indications is not None else [],
            point=self.point,
            events=self.events,
        )


async def wait(
    watch: Watch,
    within: float,
    *,
    indications: Callable[[], IIN | None],
    changed: Callable[[], Awaitable[object]],
    clock: Clock,
) -> WaitResult:
    """Judge ``watch`` until it holds or ``within`` seconds pass.

    ``indications`` gives the last response's indications; ``changed`` returns an awaitable
    that finishes when something may have changed (a bus subscriber's ``get``, say). The
    condition is judged at once, after every change, and a last time when the time is up.
    """
    start = clock.monotonic()
    deadline = start + within
    while True:
        now = clock.monotonic()
        last = indications()
        if watch.holds(last, now):
            return watch.result(True, (now - start) * 1000.0, last)
        remaining = deadline - now
        if remaining <= 0:
            return watch.result(False, (now - start) * 1000.0, last)
        try:
            await asyncio.wait_for(changed(), remaining)
        except TimeoutError:
            now = clock.monotonic()
            last = indications()
            held = watch.holds(last, now)
            return watch.result(held, (now - start) * 1000.0, last)


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        number = float(value)
        return None if math.isnan(number) else number
    return None


def _equal(value: object, expected: object) -> bool:
    if isinstance(expected, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(expected, bool) and value is expected
    if isinstance(expected, int | float) and isinstance(value, int | float):
        return float(value) == float(expected)
    return value == expected
