"""The channels a master has, by name (``add_channel``, ``remove_channel``, a config file's
``channels``); outstations name theirs in their ``channel`` setting."""

from __future__ import annotations

import time
from collections.abc import Callable

from gridwire.channels.channel import Channel, ChannelStatus
from gridwire.channels.links import check_tls
from gridwire.channels.settings import ChannelSettings, TlsChannel
from gridwire.errors import Conflict, UnknownName


class Channels:
    """Channels by name."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._by_name: dict[str, Channel] = {}

    def add(self, settings: ChannelSettings) -> ChannelStatus:
        if settings.name in self._by_name:
            raise Conflict(f"channel {settings.name!r} was already added")
        if isinstance(settings, TlsChannel):
            check_tls(settings.tls)  # files that cannot be used: a wrong parameter
        channel = Channel(settings, self._monotonic)
        self._by_name[settings.name] = channel
        return channel.status()

    def get(self, name: str) -> Channel:
        channel = self._by_name.get(name)
        if channel is None:
            known = ", ".join(sorted(self._by_name)) or "none"
            raise UnknownName(f"unknown channel {name!r} (channels: {known})")
        return channel

    async def remove(self, name: str) -> ChannelStatus:
        channel = self.get(name)
        if channel.in_use:
            names = ", ".join(sorted(channel.status().outstations.values()))
            raise Conflict(f"channel {name!r} is used by outstation {names}: remove them first")
        await channel.close()
        del self._by_name[name]
        return channel.status()

    def status(self) -> list[ChannelStatus]:
        return [channel.status() for channel in self._by_name.values()]

    async def close(self) -> None:
        for channel in self._by_name.values():
            await channel.close()
