"""A DNP3 outstation: a sans-IO session (:class:`OutstationSession`) over a database of points
(:class:`Database`), served by an asyncio TCP/TLS server (:func:`run_outstation`).

    from gridwire.outstation import run_outstation, default_database

    async with run_outstation(default_database(), "127.0.0.1", 0) as server:
        ...  # a master connects to server.port

See docs/outstation.md for what it serves and refuses, and the database file format.
"""

from gridwire.outstation.clock import DeviceClock
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.controls import AnalogCommand, BinaryCommand, Command, ControlHandler
from gridwire.outstation.database import Database
from gridwire.outstation.database_file import database_from_json, default_database, load_database
from gridwire.outstation.device import Device
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import OutstationServer, run_outstation
from gridwire.outstation.session import OutstationSession
from gridwire.outstation.tls import TlsSettings

__all__ = [
    "AnalogCommand",
    "BinaryCommand",
    "Command",
    "ControlHandler",
    "Database",
    "Device",
    "DeviceClock",
    "GenericDevice",
    "OutstationConfig",
    "OutstationServer",
    "OutstationSession",
    "TlsSettings",
    "database_from_json",
    "default_database",
    "load_database",
    "run_outstation",
]
