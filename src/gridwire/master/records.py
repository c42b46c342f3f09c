"""The records the master answers with: the results of the operations API, field for field as
README and the OpenAPI document describe them.

Slotted dataclasses (decision D3): orjson serializes them as they are and pydantic derives
their JSON Schema for OpenAPI. A published field is never renamed or dropped here; fields
that are gridwire's own shape, rather than the operations API's fixed ones, say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Literal

from gridwire.channels.channel import ChannelStatus
from gridwire.dnp3.app.fragments import Response, Undecoded
from gridwire.dnp3.objects.records import DnpObject

Outcome = Literal["complete", "timeout", "sent", "abandoned"]


@dataclass(slots=True)
class Exchange:
    """One request and its response."""

    function: str
    task: str | None
    sequence: int
    outcome: Outcome
    fragments: int
    indications: list[str]
    object_count: int
    elapsed_ms: float
    request: str
    undecoded: list[Undecoded]
    objects: list[DnpObject]
    retries: int = 0
    broadcast: int | None = None


def exchange_record(
    function: str,
    task: str | None,
    sequence: int,
    outcome: Outcome,
    request: bytes,
    responses: list[Response],
    elapsed_ms: float,
    *,
    retries: int = 0,
    broadcast: int | None = None,
    objects: list[DnpObject] | None = None,
) -> Exchange:
    """The Exchange of a request and the response fragments that arrived for it: objects and
    undecoded parts in order, the indications of the last fragment. ``objects``: those of
    ``responses`` already in one list (the session grows it as fragments arrive)."""
    if len(responses) == 1:
        undecoded = list(responses[0].undecoded)
        if objects is None:
            objects = responses[0].objects  # uncopied
    else:
        if objects is None:
            objects = list(chain.from_iterable([response.objects for response in responses]))
        undecoded = [part for response in responses for part in response.undecoded]
    return Exchange(
        function=function,
        task=task,
        sequence=sequence,
        outcome=outcome,
        fragments=len(responses),
        indications=responses[-1].iin.names if responses else [],
        object_count=len(objects),
        elapsed_ms=elapsed_ms,
        request=request.hex(),
        undecoded=undecoded,
        objects=objects,
        retries=retries,
        broadcast=broadcast,
    )


@dataclass(slots=True)
class ControlStatus:
    """What became of one control of an operate."""

    type: Literal["bo", "ao"]
    index: int
    name: str | None
    variation: int
    value: bool | int | float | str
    status: str | None
    echoed: bool


@dataclass(slots=True)
class OperateResult:
    mode: Literal["direct", "select", "direct_no_ack"]
    operated: bool
    accepted: bool | None
    statuses: list[ControlStatus]
    exchanges: list[Exchange]


@dataclass(slots=True)
class TimeSyncResult:
    written: bool
    accepted: bool | None
    delay_ms: float | None
    time_ms: int | None
    exchanges: list[Exchange]


@dataclass(slots=True)
class WaitResult:
    """``point`` is the point a value condition names as it stands (None for other
    conditions or a point never reported); ``events`` the events that satisfied an event
    condition."""

    held: bool
    elapsed_ms: float
    indications: list[str]
    point: StoredValue | None = None
    events: list[DnpObject] = field(default_factory=list)


@dataclass(slots=True)
class CaptureResult:
    """``pcap`` is base64 text of a pcap file; ``frames`` how many frames it holds.
    ``dropped``: frames with an id above ``after`` no longer kept (dropped for room or
    cleared); ``dropped_for_room``: frames the outstation's trace dropped to keep within its
    cap or the master's trace budget since it was added (gridwire's own fields, D147)."""

    pcap: str
    frames: int
    dropped: int = 0
    dropped_for_room: int = 0


@dataclass(slots=True)
class FrameRecord:
    """One frame sent or received (gridwire's own shape).

    ``hex`` holds the octets as they crossed the wire; ``dropped`` says why octets that were
    received could not be read as a frame (then the link fields are None); ``summary`` is a
    one-line reading of the link, transport and application headers.
    """

    id: int
    time_ms: float
    direction: Literal["sent", "received"]
    hex: str
    summary: str
    source: int | None = None
    destination: int | None = None
    link_function: str | None = None
    dropped: str | None = None


@dataclass(slots=True)
class StoredValue:
    """The latest value read of one point (gridwire's own shape of ``values``)."""

    type: str
    index: int
    name: str | None
    value: Any
    flags: list[str] | None
    time_ms: int | None
    event: bool
    group: int
    variation: int
    age_ms: float


@dataclass(slots=True)
class RepeatStatus:
    """The scans an outstation has on a schedule: kind -> interval in seconds."""

    schedules: dict[str, float]


@dataclass(slots=True)
class OutstationStatus:
    """Status entry of an outstation. ``tasks``, ``tasks_due`` and ``reconnect`` are the
    operations API's fixed fields; the rest is gridwire's own."""

    name: str
    host: str
    port: int
    channel: str | None
    state: Literal["connecting", "connected", "disconnected"]
    connected: bool
    tasks: dict[str, Any]
    tasks_due: list[str]
    reconnect: float | None
    read_retries: int
    manual: bool
    confirm: bool
    tls: bool
    outstation_address: int
    master_address: int
    profile: str | None
    device_profile: str | None
    indications: list[str]
    last_error: str | None
    schedules: dict[str, float]
    deviations: dict[str, Any]
    # Exchanges by outcome and unsolicited responses since the service started (D139).
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Status:
    """``allow_control`` and ``outstations`` are the operations API's fixed fields; the rest
    is gridwire's own (D149): ``outstations`` lists a page, from ``offset``, of ``total``
    outstations in the order they were added; ``next`` is the offset of the next page (None
    after the last); ``summary`` counts every outstation by connection state."""

    allow_control: bool
    outstations: list[OutstationStatus]
    channels: list[ChannelStatus] = field(default_factory=list)
    total: int = 0
    offset: int = 0
    next: int | None = None
    summary: dict[str, int] = field(default_factory=dict)
