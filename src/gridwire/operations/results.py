"""Results of the operations whose master call answers something other than an object: the
envelope's ``result`` is always a JSON object, so lists and counts are named here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import FrameRecord, StoredValue


@dataclass(slots=True)
class ValuesResult:
    """The latest value read of every point (``values``)."""

    values: list[StoredValue]


@dataclass(slots=True)
class EventsResult:
    """The events received, oldest first (``events``)."""

    events: list[DnpObject]


@dataclass(slots=True)
class TraceResult:
    """The frames sent and received (``trace``); ``dropped`` and ``dropped_for_room`` as in
    :class:`~gridwire.master.records.CaptureResult`."""

    frames: list[FrameRecord]
    dropped: int = 0
    dropped_for_room: int = 0


@dataclass(slots=True)
class ClearResult:
    """What ``clear`` forgot, and how many."""

    what: Literal["frames", "events", "values"]
    cleared: int


@dataclass(slots=True)
class DeviationsResult:
    """The deviations on after ``deviate``: name -> True or its parameter."""

    deviations: dict[str, Any]


@dataclass(slots=True)
class StopResult:
    """``stop`` answers before the service ends."""

    stopping: bool
