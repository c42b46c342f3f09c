"""What every part of the demo map is built with: the purposes its points are given, the
ranges, and :class:`Builder`, which adds points, mirrored pairs and sections of inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gridwire.der.points import Address, Kind, Number, Point, with_name_values

TITLE = "gridwire demo DER (our own map in the profile's numbering, not IEEE's tables)"
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
WINDOW_POINTS = 100

# Purposes the demo gives its points.
NAMEPLATE = "Nameplate"
SETTINGS = "Settings"
MONITORING = "Monitoring"
STATUS = "Status"
ALARM = "Alarm"
CONTROL = "Control"
CURVE = "Curve"

ALARM_STATES = ("Normal", "Alarm")
SUPPORT_STATES = ("Not supported", "Supported")


@dataclass
class Builder:
    points: list[Point] = field(default_factory=list)

    def add(self, kind: Kind, index: int, name: str, **attrs: Any) -> None:
        point = Point(kind, index, name, **attrs)
        self.points.append(with_name_values(point))

    def mirrored(
        self, output: Address, index: int, name: str, event_class: int, **shared: Any
    ) -> None:
        """An output and the input (of index ``index``) that mirrors it; ``input_name`` may
        name the input apart."""
        kind = output.kind.mirror
        assert kind is not None
        input_name = shared.pop("input_name", None) or name
        self.add(output.kind, output.index, name, associated=Address(kind, index), **shared)
        self.add(kind, index, input_name, associated=output, event_class=event_class, **shared)

    def pair(self, ao: int, ai: int, name: str, **shared: Any) -> None:
        """An analog output and its mirror input (event class 2); ranges default to 0 up."""
        shared.setdefault("minimum", 0)
        shared.setdefault("maximum", INT32_MAX)
        self.mirrored(Address(Kind.AO, ao), ai, name, 2, **shared)

    def inputs(self, section: str, purpose: str, event_class: int) -> Callable[..., None]:
        """A function adding the analog inputs of one section: ``(index, name, units, value,
        **attrs)``; ranges default to 0 and up, ``event_class`` may be given per input."""

        def add_input(
            index: int, name: str, units: str | None, value: Number, **attrs: Any
        ) -> None:
            attrs.setdefault("minimum", 0)
            attrs.setdefault("maximum", INT32_MAX)
            attrs.setdefault("event_class", event_class)
            self.add(
                Kind.AI,
                index,
                name,
                section=section,
                purpose=purpose,
                units=units,
                value=value,
                **attrs,
            )

        return add_input

    def binary_pair(
        self, bo: int, bi: int, name: str, states: tuple[str, str], **shared: Any
    ) -> None:
        """A binary output and its mirror input; ``event_class`` is the input's."""
        event_class = shared.pop("event_class")
        shared.setdefault("value", False)
        self.mirrored(Address(Kind.BO, bo), bi, name, event_class, states=states, **shared)
