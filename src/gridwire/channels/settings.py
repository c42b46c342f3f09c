"""What a channel is made over, as given to ``add_channel`` or a config file's ``channels``.

A channel has a name (outstations name it in their ``channel`` setting) and a ``kind``:

- ``tcp`` / ``tls``: one connection to ``host:port`` (a terminal server, a gateway, one
  endpoint answering for several link addresses). An outstation's own ``host``/``port``/``tls``
  stay the short form of a channel of its own.
- ``serial``: a device path (``/dev/ttyS0``, ``/dev/ttyUSB0``), baud rate, data bits, parity,
  stop bits; half-duplex (one request on the line at a time) unless told otherwise.
- ``udp``: our local endpoint and the outstation's remote one; IEEE 1815's rules for UDP: no
  link-layer confirmations are asked for, and a request fragment fits one datagram.

Serial timing (DESIGN D187): ``inter_character_timeout`` is the longest silence inside a frame
before its partial octets are thrown away; ``response_timeout`` is the response timeout of the
outstations on the channel that do not give their own.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gridwire.net.binding import HOST_LENGTH
from gridwire.net.tls_files import PATH_LENGTH, ClientTls

NAME_LENGTH: Final = 64
ETHERNET_DATAGRAM: Final = 1472
"""UDP payload of one Ethernet frame (1500 octets less 20 of IPv4 and 8 of UDP)."""
LARGEST_DATAGRAM: Final = 65507
LINK_FRAME: Final = 292
"""The largest link frame, in octets (10 header + 250 user data + 16 CRCs)."""
SEGMENT_ROOM: Final = 249
"""Octets of an application fragment one link frame carries (one goes to the transport header)."""


class _Channel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    name: str = Field(min_length=1, max_length=NAME_LENGTH, description="The channel's name")
    half_duplex: bool | None = Field(
        default=None,
        description="One request on the channel at a time, whichever outstation it is for "
        "(default: yes on serial, no elsewhere, where each outstation has its own)",
    )

    @field_validator("name")
    @classmethod
    def _printable(cls, value: str) -> str:
        if not value.isprintable():
            raise ValueError("a name is printable text: no line breaks, tabs or other controls")
        return value

    @property
    def one_request(self) -> bool:
        """Whether one request at a time is in flight on the whole channel."""
        return self.half_duplex if self.half_duplex is not None else self.kind == "serial"

    @property
    def fragment_limit(self) -> int | None:
        """The largest request fragment the channel carries, or None for no limit of its own."""
        return None

    @property
    def default_response_timeout(self) -> float | None:
        """The response timeout of outstations on this channel that give none."""
        return None

    def describe(self) -> str:
        raise NotImplementedError


class TcpChannel(_Channel):
    """One TCP connection shared by the outstations on it."""

    kind: Literal["tcp"] = "tcp"
    host: str = Field(min_length=1, max_length=HOST_LENGTH)
    port: int = Field(ge=1, le=65535)

    def describe(self) -> str:
        return f"tcp {self.host}:{self.port}"


class TlsChannel(_Channel):
    """One TLS connection shared by the outstations on it."""

    kind: Literal["tls"] = "tls"
    host: str = Field(min_length=1, max_length=HOST_LENGTH)
    port: int = Field(ge=1, le=65535)
    tls: ClientTls

    def describe(self) -> str:
        return f"tls {self.host}:{self.port}"


class SerialChannel(_Channel):
    """A serial line (RS-232, RS-485 multi-drop)."""

    kind: Literal["serial"] = "serial"
    device: str = Field(min_length=1, max_length=PATH_LENGTH, description="Device path")
    baud: int = Field(default=9600, ge=50, le=4_000_000, description="Baud rate")
    data_bits: Literal[5, 6, 7, 8] = 8
    parity: Literal["none", "even", "odd", "mark", "space"] = "none"
    stop_bits: Literal[1, 2] = 1
    inter_character_timeout: float = Field(
        default=0.1,
        gt=0,
        le=60,
        allow_inf_nan=False,
        description="Longest silence (s) inside a frame before its partial octets are dropped",
    )
    response_timeout: float = Field(
        default=2.0,
        gt=0,
        le=600,
        allow_inf_nan=False,
        description="Response timeout (s) of outstations on this line that give none",
    )

    @property
    def default_response_timeout(self) -> float | None:
        return self.response_timeout

    def describe(self) -> str:
        parity = self.parity[0].upper()
        return f"serial {self.device} {self.baud} {self.data_bits}{parity}{self.stop_bits}"


class UdpChannel(_Channel):
    """UDP datagrams between our local endpoint and the outstation's."""

    kind: Literal["udp"] = "udp"
    local_host: str = Field(default="0.0.0.0", min_length=1, max_length=HOST_LENGTH)
    local_port: int = Field(default=0, ge=0, le=65535, description="0: any free port")
    remote_host: str = Field(min_length=1, max_length=HOST_LENGTH)
    remote_port: int = Field(ge=1, le=65535)
    max_datagram: int = Field(
        default=ETHERNET_DATAGRAM,
        ge=LINK_FRAME,
        le=LARGEST_DATAGRAM,
        description="Largest datagram sent (octets); a request fragment fits one",
    )

    @property
    def fragment_limit(self) -> int | None:
        return (self.max_datagram // LINK_FRAME) * SEGMENT_ROOM

    def describe(self) -> str:
        return f"udp {self.local_host}:{self.local_port} -> {self.remote_host}:{self.remote_port}"


ChannelSettings = Annotated[
    TcpChannel | TlsChannel | SerialChannel | UdpChannel, Field(discriminator="kind")
]
"""A channel of any kind, told apart by ``kind``."""


class ChannelParams(BaseModel):
    """``add_channel``'s parameters: the channel."""

    model_config = ConfigDict(extra="forbid")

    channel: ChannelSettings


class ChannelName(BaseModel):
    """A channel by name."""

    model_config = ConfigDict(extra="forbid")

    channel: str = Field(min_length=1, max_length=NAME_LENGTH)
