"""What the master's session writes to and reads from: a TCP or TLS connection of its own
(:class:`gridwire.channels.links.PhysicalLink`, opened with ``hold``) or its place on a
shared channel (:class:`gridwire.channels.channel.Drop`)."""

from __future__ import annotations

from typing import Protocol

from gridwire.capture import Endpoint, TcpFlow


class Link(Protocol):
    """A connection as a session uses it."""

    @property
    def local(self) -> Endpoint: ...

    @property
    def remote(self) -> Endpoint: ...

    @property
    def is_open(self) -> bool: ...

    def start(self) -> None:
        """Deliver what arrived so far, and from now on what arrives."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...

    async def wait_closed(self, within: float = 5.0) -> None: ...

    def capture_flow(self) -> TcpFlow:
        """The flow its frames are captured in."""
        ...
