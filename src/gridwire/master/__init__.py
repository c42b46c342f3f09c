"""gridwire's DNP3 master: an asyncio Python API (:class:`Master`) that the operations
service only calls.

    from gridwire.master import Master, OutstationSettings

    master = Master(allow_control=False)
    await master.add(OutstationSettings(name="feeder", host="127.0.0.1", port=20001))
    exchange = await master.scan("feeder", "integrity")
"""

from gridwire.master.bus import EventBus, Subscriber
from gridwire.master.conditions import EventCondition, IndicationCondition, ValueCondition
from gridwire.master.controls import Control, ControlProfile
from gridwire.master.gate import READ_ONLY_FUNCTIONS, commands
from gridwire.master.master import BROADCAST_ADDRESSES, Master, ProfileSource
from gridwire.master.records import (
    CaptureResult,
    ControlStatus,
    Exchange,
    FrameRecord,
    OperateResult,
    OutstationStatus,
    RepeatStatus,
    Status,
    StoredValue,
    TimeSyncResult,
    WaitResult,
)
from gridwire.master.scans import POINT_GROUPS, SCAN_KINDS
from gridwire.master.settings import OutstationSettings, TaskSettings, TlsSettings
from gridwire.process.clock import SystemClock

__all__ = [
    "BROADCAST_ADDRESSES",
    "POINT_GROUPS",
    "READ_ONLY_FUNCTIONS",
    "SCAN_KINDS",
    "CaptureResult",
    "Control",
    "ControlProfile",
    "ControlStatus",
    "EventBus",
    "EventCondition",
    "Exchange",
    "FrameRecord",
    "IndicationCondition",
    "Master",
    "OperateResult",
    "OutstationSettings",
    "OutstationStatus",
    "ProfileSource",
    "RepeatStatus",
    "Status",
    "StoredValue",
    "Subscriber",
    "SystemClock",
    "TaskSettings",
    "TimeSyncResult",
    "TlsSettings",
    "ValueCondition",
    "WaitResult",
    "commands",
]
