"""The channel operations: ``add_channel`` and ``remove_channel`` (DESIGN D184). A channel
named here is what an outstation's ``channel`` setting (``add``) refers to; ``status`` lists
the channels with the outstations on each."""

from __future__ import annotations

from typing import Any

from gridwire.channels.channel import ChannelStatus, UnroutedFrame
from gridwire.channels.settings import ChannelName, ChannelParams
from gridwire.operations.declaration import Operation, declare

CHANNEL_OPERATIONS: list[Operation[Any]] = [
    declare(
        "add_channel",
        params=ChannelParams,
        result=ChannelStatus,
        handler=lambda c, p: c.master.add_channel(p.channel),
        summary="Add a channel (tcp, tls, serial, udp) outstations can be added on",
        description="channel.kind says which: tcp and tls (host, port; tls files), serial "
        "(device, baud, data_bits, parity, stop_bits, inter_character_timeout, "
        "response_timeout), udp (local_host, local_port, remote_host, remote_port, "
        "max_datagram). Nothing is opened until an outstation on it connects; add then takes "
        "channel (this name) and the outstation's link address. Several outstations may share "
        "a channel, each by its own link address; on a half-duplex channel (serial unless "
        "half_duplex is false) one request is on the line at a time.",
    ),
    declare(
        "channel_trace",
        params=ChannelName,
        result=list[UnroutedFrame],
        handler=lambda c, p: c.master.channels.get(p.channel).trace(),
        summary="The latest frames on a channel from addresses none of its outstations has",
        description="Each outstation's own frames are in its trace and capture; these went to "
        "none of them (and were dropped; status counts them).",
    ),
    declare(
        "remove_channel",
        params=ChannelName,
        result=ChannelStatus,
        handler=lambda c, p: c.master.remove_channel(p.channel),
        summary="Forget a channel no outstation is on",
    ),
]
