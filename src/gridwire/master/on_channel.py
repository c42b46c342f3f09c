"""An outstation's settings as its channel shapes them (DESIGN D184, D187, D188).

On a named channel the outstation's address is claimed there (two outstations on one channel
need different addresses), a request fragment is kept to what the channel carries (on UDP,
one datagram), and an outstation that gives no response timeout takes the channel's (serial
lines answer slower than a LAN, and a serial user expects the line's timeout to apply).
"""

from __future__ import annotations

from typing import Any

from gridwire.channels.channel import Channel
from gridwire.channels.registry import Channels
from gridwire.master.settings import OutstationSettings


def on_channel(
    settings: OutstationSettings, channels: Channels
) -> tuple[OutstationSettings, Channel | None]:
    """The settings to use and the channel (None for the short form, host and port);
    RequestError for an unknown channel or an address taken on it."""
    if settings.channel is None:
        return settings, None
    channel = channels.get(settings.channel)
    channel.claim(settings.outstation_address, settings.name)
    changes: dict[str, Any] = {}
    limit = channel.settings.fragment_limit
    if limit is not None and settings.max_request_fragment > limit:
        changes["max_request_fragment"] = limit
    timeout = channel.settings.default_response_timeout
    if timeout is not None and "response_timeout" not in settings.model_fields_set:
        changes["response_timeout"] = timeout
    if not changes:
        return settings, channel
    return settings.model_copy(update=changes), channel


def let_go(settings: OutstationSettings, channels: Channels) -> None:
    """The outstation is removed: its address on its channel is free again."""
    if settings.channel is not None:
        channels.get(settings.channel).release(settings.outstation_address)
