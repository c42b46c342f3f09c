from __future__ import annotations

import pytest

from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.session import OutstationSession
from tests.outstation.wire import Wire

# The device believes it is 2023-11-14T22:13:20Z at now = 0 (1.7e12 ms since the epoch).
EPOCH_MS = 1_700_000_000_000


def small_database() -> Database:
    """bi 0 (on) and 1 (off), ai 0 = -2, bo 0..1, ao 0, counter 0 and frozen 0: class 1."""
    db = Database(DeviceClock(EPOCH_MS, 0.0), event_capacity=5)
    db.add("bi", 0, True)
    db.add("bi", 1, False)
    db.add("ai", 0, -2)
    db.add("bo", 0, False)
    db.add("bo", 1, False)
    db.add("ao", 0, 0)
    db.add("counter", 0, 7)
    db.add("frozen", 0, 0)
    return db


def make_wire(db: Database | None = None, **config: object) -> Wire:
    device = GenericDevice(db if db is not None else small_database())
    session = OutstationSession(device, OutstationConfig(**config))  # type: ignore[arg-type]
    wire = Wire(session)
    wire.connect(0.0)
    return wire


@pytest.fixture
def wire() -> Wire:
    return make_wire()
