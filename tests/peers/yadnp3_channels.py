"""Command-line options, the DNP3Manager and the TCP / TLS channels the yadnp3 programs share."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import opendnp3 as o
from peerio import emit, guarded

LogSink = Callable[[int, str, str], None]


def tls_config(args: argparse.Namespace) -> Any | None:
    given = [args.tls_ca, args.tls_certificate, args.tls_key]
    if not any(given):
        return None
    if not all(given):
        raise SystemExit("TLS needs all of --tls-ca, --tls-certificate and --tls-key")
    return o.TLSConfig(args.tls_ca, args.tls_certificate, args.tls_key)


class _LogHandler(o.ILogHandler):  # type: ignore[misc]
    def __init__(self, sink: LogSink) -> None:
        super().__init__()
        self._sink = sink

    @guarded(None)
    def log(self, module: Any, source: str, level: Any, location: str, message: str) -> None:
        self._sink(int(level.value), source, message)


class _ChannelListener(o.IChannelListener):  # type: ignore[misc]
    @guarded(None)
    def OnStateChange(self, state: Any) -> None:
        emit("channel", state=state.name)


def manager(sink: LogSink) -> tuple[Any, list[Any]]:
    """A one-thread DNP3Manager whose log lines go to ``sink(level, source, message)``.

    Also returns the list that keeps the Python callback objects alive as long as the stack.
    """
    handler = _LogHandler(sink)
    return o.DNP3Manager(1, handler), [handler]


def serial_channel(mgr: Any, device: str, levels: int, listener: Any) -> Any:
    """A serial channel on ``device`` (115200 8N1, no flow control)."""
    settings = o.SerialSettings()
    settings.deviceName = device
    settings.baud = 115200
    settings.dataBits = 8
    settings.parity = o.Parity.__members__["None"]
    settings.stopBits = o.StopBits.__members__["One"]
    settings.flowType = o.FlowControl.__members__["None"]
    retry = o.ChannelRetry(o.TimeDuration.Milliseconds(100), o.TimeDuration.Milliseconds(1000))
    return mgr.AddSerial("serial", o.LogLevels(levels), retry, settings, listener)


def server_channel(mgr: Any, args: argparse.Namespace, levels: int, keep: list[Any]) -> Any:
    listener = _ChannelListener()
    keep.append(listener)
    if getattr(args, "serial", None):
        return serial_channel(mgr, args.serial, levels, listener)
    if getattr(args, "udp_remote", None):  # datagrams on --port, to the master's --udp-remote
        retry = o.ChannelRetry(o.TimeDuration.Milliseconds(100), o.TimeDuration.Milliseconds(1000))
        local = o.IPEndpoint(args.host, args.port)
        remote = o.IPEndpoint(args.host, args.udp_remote)
        return mgr.AddUDPChannel("udp", o.LogLevels(levels), retry, local, remote, listener)
    endpoint = o.IPEndpoint(args.host, args.port)
    log_levels = o.LogLevels(levels)
    tls = tls_config(args)
    mode = o.ServerAcceptMode.CloseExisting
    if tls is None:
        return mgr.AddTCPServer("server", log_levels, mode, endpoint, listener)
    return mgr.AddTLSServer("server", log_levels, mode, endpoint, tls, listener)


def client_channel(
    mgr: Any, args: argparse.Namespace, levels: int, retry_ms: int, keep: list[Any]
) -> Any:
    listener = _ChannelListener()
    keep.append(listener)
    retry = o.ChannelRetry(
        o.TimeDuration.Milliseconds(retry_ms), o.TimeDuration.Milliseconds(max(retry_ms, 1000))
    )
    hosts = [o.IPEndpoint(args.host, args.port)]
    log_levels = o.LogLevels(levels)
    tls = tls_config(args)
    if tls is None:
        return mgr.AddTCPClient("client", log_levels, retry, hosts, "0.0.0.0", listener)
    return mgr.AddTLSClient("client", log_levels, retry, hosts, "0.0.0.0", tls, listener)
