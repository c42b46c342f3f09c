"""The service behind the management API. The router asks it for a reading and a status; an
embedding application subclasses :class:`Sep2Service` to add operations for its own routes."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gridwire.sep2.client import Sep2Client
from gridwire.sep2.reading import TimeReading, TimeUnavailable
from gridwire.sep2.status import ClientStatus


@runtime_checkable
class ManagementService(Protocol):
    def time_reading(self) -> TimeReading | TimeUnavailable: ...

    def status(self) -> ClientStatus: ...


class Sep2Service:
    """The management operations over one :class:`Sep2Client`."""

    def __init__(self, client: Sep2Client) -> None:
        self.client = client

    def time_reading(self) -> TimeReading | TimeUnavailable:
        """The head-end's time from the cached offset: never a request upstream."""
        return self.client.time_reading()

    def status(self) -> ClientStatus:
        return self.client.status()
