"""The operations of the master (D49): one declaration each, calling the master.

The ``der.*`` family, ``checks`` and ``evaluate`` come as further declarations in their own
module and join the table in :func:`gridwire.operations.table.default_table`.
"""

from __future__ import annotations

from typing import Any

from gridwire.der.records import Profile, profile_of
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master import gate
from gridwire.master.attributes import AttributesResult, read_attributes
from gridwire.master.records import (
    CaptureResult,
    Exchange,
    OperateResult,
    OutstationStatus,
    RepeatStatus,
    Status,
    TimeSyncResult,
    WaitResult,
)
from gridwire.master.settings import WRITING_TASKS, OutstationSettings, TaskSettings
from gridwire.operations.declaration import Operation, OutstationParams, declare
from gridwire.operations.params import (
    AfterParams,
    BroadcastParams,
    ClearParams,
    ConnectParams,
    DeviateParams,
    FreezeParams,
    NoParams,
    OperateParams,
    ReadParams,
    RepeatParams,
    RequestParams,
    RestartParams,
    ScanParams,
    SetTasksParams,
    StatusParams,
    SynchronizeParams,
    UnsolicitedParams,
    WaitForParams,
)
from gridwire.operations.results import (
    ClearResult,
    DeviationsResult,
    EventsResult,
    StopResult,
    TraceResult,
    ValuesResult,
)


def _writes_tasks(tasks: dict[str, Any]) -> bool:
    """Whether task choices turn on a task that writes to the outstation."""
    return any(tasks.get(name) is True for name in WRITING_TASKS)


def _by_function(function: str, body: str = "") -> bool:
    """Whether a request by name commands; file requests by their objects too (D193)."""
    try:
        octets: bytes | None = bytes.fromhex(body)
    except ValueError:
        octets = None
    return gate.commands(FunctionCode[function], octets)


MASTER_OPERATIONS: list[Operation[Any]] = [
    declare(
        "status",
        params=StatusParams,
        result=Status,
        handler=lambda c, p: c.master.status_page(p.offset, p.limit),
        summary="The outstations and how each stands; allow_control",
        description="Each outstation with its connection state, tasks, tasks_due, reconnect "
        "and the rest of its settings; and whether the service may command. A page of "
        "limit outstations from offset (in the order they were added); total, next (the "
        "offset of the next page, null after the last) and summary (every outstation "
        "counted by connection state) say what the page leaves out.",
    ),
    declare(
        "add",
        params=OutstationSettings,
        result=OutstationStatus,
        handler=lambda c, p: c.master.add(p),
        commands=lambda p: _writes_tasks(p.tasks),
        summary="Add an outstation and connect; answers once connected",
        description="The outstation stays added when the connection cannot be made (error "
        "kind connection); connect tries again. Turning on the tasks that write "
        "(clear_restart, write_time) needs control.",
    ),
    declare(
        "remove",
        params=OutstationParams,
        result=OutstationStatus,
        handler=lambda c, p: c.master.remove(p.outstation),
        summary="Close an outstation's connection and forget it",
    ),
    declare(
        "connect",
        params=ConnectParams,
        result=OutstationStatus,
        handler=lambda c, p: c.master.connect(p.outstation, p.wait),
        summary="Connect; answers once connected",
        description="With wait, tries once a second for that many seconds and answers with "
        "the last connection error when the time is up.",
    ),
    declare(
        "disconnect",
        params=OutstationParams,
        result=OutstationStatus,
        handler=lambda c, p: c.master.disconnect(p.outstation),
        summary="Close an outstation's connection",
    ),
    declare(
        "idle",
        params=OutstationParams,
        result=OutstationStatus,
        handler=lambda c, p: c.master.idle(p.outstation),
        summary="Wait until nothing the master does unasked is due or under way",
    ),
    declare(
        "set_tasks",
        params=SetTasksParams,
        result=TaskSettings,
        handler=lambda c, p: c.master.set_tasks(p.outstation, p.changes),
        commands=lambda p: _writes_tasks(p.changes),
        summary="Merge task choices with the outstation's; a due task turned off is not done",
    ),
    declare(
        "wait_for",
        params=WaitForParams,
        result=WaitResult,
        handler=lambda c, p: c.master.wait_for(
            p.outstation, p.timeout, value=p.value, event=p.event, indication=p.indication
        ),
        summary="Wait for a value, an event or an indication; nothing is sent",
        description="timeout in seconds and exactly one of value (type, index, optionally "
        "equals, tolerance with value, at_least, at_most), event (optional type, index) or "
        "indication (name, set).",
    ),
    declare(
        "profile",
        params=OutstationParams,
        result=Profile,
        handler=lambda c, p: profile_of(c.point_map(p.outstation)),
        summary="Every point of the profile the outstation is meant to serve",
        description="Point of a profile records, one list per point type.",
    ),
    declare(
        "scan",
        params=ScanParams,
        result=Exchange,
        handler=lambda c, p: c.master.scan(p.outstation, p.kind),
        summary="One read: integrity, events, class0-class3 or outputs",
    ),
    declare(
        "read",
        params=ReadParams,
        result=Exchange,
        handler=lambda c, p: c.master.read(p.outstation, p.by_type),
        summary="One read of named points (by type: indexes and a-b ranges)",
    ),
    declare(
        "values",
        params=OutstationParams,
        result=ValuesResult,
        handler=lambda c, p: ValuesResult(c.master.values(p.outstation)),
        summary="What has been read of every point; no traffic",
    ),
    declare(
        "events",
        params=OutstationParams,
        result=EventsResult,
        handler=lambda c, p: EventsResult(c.master.events(p.outstation)),
        summary="The events received, oldest first; no traffic",
    ),
    declare(
        "attributes",
        params=OutstationParams,
        result=AttributesResult,
        handler=lambda c, p: read_attributes(c.master, p.outstation),
        summary="The device attributes (group 0): vendor, model, serial, versions...",
        description="One READ of g0v254 (all attributes, qualifier 0x06); each attribute "
        "by the standard's name (key, name), its data_type and value typed by it. An "
        "outstation that refuses or lacks group 0 is answered ok, answered false, with "
        "what it gave.",
    ),
    declare(
        "request",
        params=RequestParams,
        result=Exchange,
        handler=lambda c, p: c.master.request(p.outstation, p.function, bytes.fromhex(p.body)),
        commands=lambda p: _by_function(p.function, p.body),
        summary="Any request by function code",
        description="Without control only READ, ENABLE_UNSOLICITED, DISABLE_UNSOLICITED, "
        "DELAY_MEASURE, GET_FILE_INFO, AUTHENTICATE_FILE and OPEN_FILE for reading are sent.",
    ),
    declare(
        "operate",
        params=OperateParams,
        result=OperateResult,
        handler=lambda c, p: c.master.operate(
            p.outstation, {k: dict(v) for k, v in p.points.items()}, p.mode, p.variation
        ),
        commands=True,
        summary="Operate binary and analog outputs: direct, select or direct_no_ack",
        description="A whole number is sent as an integer and anything else as a float "
        "unless variation says which; a control is never sent twice; a refused control is "
        "ok true with accepted false.",
    ),
    declare(
        "write_time",
        params=OutstationParams,
        result=Exchange,
        handler=lambda c, p: c.master.write_time(p.outstation),
        commands=True,
        summary="Write the outstation's clock",
    ),
    declare(
        "clear_restart",
        params=OutstationParams,
        result=Exchange,
        handler=lambda c, p: c.master.clear_restart(p.outstation),
        commands=True,
        summary="Clear the restart indication",
    ),
    declare(
        "synchronize_time",
        params=SynchronizeParams,
        result=TimeSyncResult,
        handler=lambda c, p: c.master.synchronize_time(p.outstation, p.procedure),
        commands=True,
        summary="Synchronize the clock by the lan or non_lan procedure",
    ),
    declare(
        "freeze",
        params=FreezeParams,
        result=Exchange,
        handler=lambda c, p: c.master.freeze(p.outstation, p.clear, p.no_ack),
        commands=True,
        summary="Freeze every counter (optionally clear, or without acknowledgment)",
    ),
    declare(
        "restart",
        params=RestartParams,
        result=Exchange,
        handler=lambda c, p: c.master.restart(p.outstation, p.kind),
        commands=True,
        summary="A cold or a warm restart",
    ),
    declare(
        "broadcast",
        params=BroadcastParams,
        result=Exchange,
        handler=lambda c, p: c.master.broadcast(
            p.outstation, p.function, bytes.fromhex(p.body), p.address
        ),
        commands=lambda p: _by_function(p.function, p.body),
        summary="A request to a broadcast address on the outstation's connection",
        description="address no_confirm (0xFFFD), shall_confirm (0xFFFE) or optional_confirm "
        "(0xFFFF); the outcome is sent.",
    ),
    declare(
        "enable_unsolicited",
        params=UnsolicitedParams,
        result=Exchange,
        handler=lambda c, p: c.master.enable_unsolicited(p.outstation, list(p.classes)),
        summary="Enable unsolicited reporting of event classes",
    ),
    declare(
        "disable_unsolicited",
        params=UnsolicitedParams,
        result=Exchange,
        handler=lambda c, p: c.master.disable_unsolicited(p.outstation, list(p.classes)),
        summary="Disable unsolicited reporting of event classes",
    ),
    declare(
        "repeat",
        params=RepeatParams,
        result=RepeatStatus,
        handler=lambda c, p: c.master.repeat(p.outstation, p.kind, p.interval),
        summary="A scan on a schedule, or an end to one",
        description="kind and interval (seconds) start or reset a schedule; kind alone ends "
        "its schedule, nothing ends them all. A new schedule for a kind abandons the scan "
        "the old one had under way.",
    ),
    declare(
        "trace",
        params=AfterParams,
        result=TraceResult,
        handler=lambda c, p: TraceResult(
            c.master.trace(p.outstation, p.after), *c.master.trace_dropped(p.outstation, p.after)
        ),
        summary="The frames sent and received (after: only greater ids)",
    ),
    declare(
        "capture",
        params=AfterParams,
        result=CaptureResult,
        handler=lambda c, p: c.master.capture(p.outstation, p.after),
        summary="The frames kept, as a pcap file (base64); reads nothing from the outstation",
    ),
    declare(
        "clear",
        params=ClearParams,
        result=ClearResult,
        handler=lambda c, p: ClearResult(p.what, c.master.clear(p.outstation, p.what)),
        summary="Forget the frames, events or values kept",
    ),
    declare(
        "deviate",
        params=DeviateParams,
        result=DeviationsResult,
        handler=lambda c, p: DeviationsResult(c.master.deviate(p.outstation, p.changes)),
        summary="Turn named deviations (protocol rules the master breaks) on or off",
    ),
    declare(
        "stop",
        params=NoParams,
        result=StopResult,
        handler=lambda c, p: c.stop(),
        summary="End the service",
    ),
]
