"""One TCP connection between a master and an outstation, synthesised as Ethernet frames for a
pcap file, sans-IO.

DNP3 frames are carried as the payload of TCP segments, one segment per call, with the
framing a capture taken on the wire would show: Ethernet II, IPv4 (or IPv6 when both ends
are IPv6 literals) and TCP, every checksum valid, sequence and acknowledgement numbers
consistent in both directions, and a SYN, SYN-ACK, ACK handshake before the first segment
so that Wireshark follows the stream (and reassembles a DNP3 frame across segments if a
caller ever splits one).
"""

from __future__ import annotations

import ipaddress
import struct
import zlib
from collections.abc import Iterable
from enum import StrEnum
from typing import Final

from gridwire.capture.pcap import (
    RECORD_HEADER_SIZE,
    CaptureError,
    Timestamp,
    global_header,
    record,
)

Endpoint = tuple[str, int]
"""An IP literal and a TCP port."""

SYN: Final = 0x02
PSH: Final = 0x08
ACK: Final = 0x10

TTL: Final = 64
WINDOW: Final = 65535
_MODULUS: Final = 1 << 32

_ETHERTYPE_IPV4: Final = 0x0800
_ETHERTYPE_IPV6: Final = 0x86DD
_PROTOCOL_TCP: Final = 6
_DONT_FRAGMENT: Final = 0x4000

_ETHERNET: Final = struct.Struct("!6s6sH")
_IPV4: Final = struct.Struct("!BBHHHBBH4s4s")
_IPV6: Final = struct.Struct("!IHBB16s16s")
_TCP: Final = struct.Struct("!HHIIBBHHH")
_TCP_HEADER_SIZE: Final = _TCP.size
_MAX_PAYLOAD: Final = 65535 - 20 - _TCP_HEADER_SIZE


class Direction(StrEnum):
    """Which way a payload travels."""

    TO_OUTSTATION = "to_outstation"
    TO_MASTER = "to_master"


def internet_checksum(data: bytes) -> int:
    """The RFC 1071 checksum: the one's complement of the one's complement sum of the
    16-bit big-endian words of ``data`` (an odd last octet padded with a zero)."""
    if len(data) % 2:
        data += b"\x00"
    total: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _address(endpoint: Endpoint, role: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    host, port = endpoint
    if not 0 <= port <= 0xFFFF:
        raise CaptureError(f"{role} port {port} is outside 0..65535")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        raise CaptureError(f"{role} address {host!r} is not an IP literal") from None


class _Side:
    """What one end has sent: its address, MAC, next sequence number and IP identification."""

    __slots__ = ("address", "identification", "mac", "next_seq", "port")

    def __init__(self, address: bytes, port: int, mac: bytes, isn: int) -> None:
        self.address = address
        self.port = port
        self.mac = mac
        self.next_seq = (isn + 1) % _MODULUS
        self.identification = 0


class TcpFlow:
    """Turns (direction, payload, timestamp) into pcap records of one TCP connection.

    The initial sequence numbers derive from the endpoints unless given, so the same calls
    make the same octets. Each :meth:`record` carries one payload in one segment with PSH
    and ACK set, acknowledging everything the other side has sent; the first call is
    preceded by the handshake. :meth:`handshake` writes one explicitly (a rotating writer
    begins each file with one); its numbers continue from what the flow has already sent.
    """

    __slots__ = ("__weakref__", "_ipv6", "_master", "_outstation", "started")

    def __init__(
        self,
        master: Endpoint,
        outstation: Endpoint,
        *,
        master_isn: int | None = None,
        outstation_isn: int | None = None,
    ) -> None:
        master_ip = _address(master, "master")
        outstation_ip = _address(outstation, "outstation")
        if master_ip.version != outstation_ip.version:
            raise CaptureError(
                f"master {master_ip} and outstation {outstation_ip} are not of one IP version"
            )
        self._ipv6 = master_ip.version == 6
        if master_isn is None:
            master_isn = zlib.crc32(f"{master_ip} {master[1]}".encode())
        if outstation_isn is None:
            outstation_isn = zlib.crc32(f"{outstation_ip} {outstation[1]}".encode())
        # Locally administered unicast MACs (02: master, 06: outstation) ending in the
        # address's last four octets.
        self._master = _Side(
            master_ip.packed, master[1], b"\x02\x00" + master_ip.packed[-4:], master_isn
        )
        self._outstation = _Side(
            outstation_ip.packed,
            outstation[1],
            b"\x06\x00" + outstation_ip.packed[-4:],
            outstation_isn,
        )
        self.started = False

    def record_size(self, payload: int) -> int:
        """Octets :meth:`record` returns for a payload of that many octets (no handshake)."""
        ip = 40 if self._ipv6 else 20
        return RECORD_HEADER_SIZE + _ETHERNET.size + ip + _TCP_HEADER_SIZE + payload

    @property
    def handshake_size(self) -> int:
        """Octets :meth:`handshake` returns."""
        return 3 * self.record_size(0)

    def handshake(self, timestamp: Timestamp) -> bytes:
        """SYN, SYN-ACK and ACK records, all at ``timestamp``."""
        master, outstation = self._master, self._outstation
        records = (
            self._segment(master, outstation, SYN, b"", timestamp, seq=-1, ack=None),
            self._segment(outstation, master, SYN | ACK, b"", timestamp, seq=-1),
            self._segment(master, outstation, ACK, b"", timestamp),
        )
        self.started = True
        return b"".join(records)

    def record(self, direction: Direction, payload: bytes, timestamp: Timestamp) -> bytes:
        """The record of one segment carrying ``payload`` (after the handshake the first
        time). CaptureError for a payload longer than one IP packet holds."""
        if len(payload) > _MAX_PAYLOAD:
            raise CaptureError(f"a payload of {len(payload)} octets does not fit one segment")
        prefix = b"" if self.started else self.handshake(timestamp)
        if direction is Direction.TO_OUTSTATION:
            sender, receiver = self._master, self._outstation
        else:
            sender, receiver = self._outstation, self._master
        return prefix + self._segment(sender, receiver, PSH | ACK, payload, timestamp)

    def _segment(
        self,
        sender: _Side,
        receiver: _Side,
        flags: int,
        payload: bytes,
        timestamp: Timestamp,
        *,
        seq: int = 0,
        ack: int | None = 0,
    ) -> bytes:
        """One Ethernet frame in a record. ``seq`` -1 sends the SYN's number (one before the
        sender's next); ``ack`` None leaves the acknowledgement number zero (a first SYN)."""
        sequence = (sender.next_seq + seq) % _MODULUS
        acknowledgement = 0 if ack is None else receiver.next_seq
        tcp_length = _TCP_HEADER_SIZE + len(payload)
        header = _TCP.pack(
            sender.port,
            receiver.port,
            sequence,
            acknowledgement,
            (_TCP_HEADER_SIZE // 4) << 4,
            flags,
            WINDOW,
            0,
            0,
        )
        segment = header + payload
        if self._ipv6:
            pseudo = sender.address + receiver.address + struct.pack("!IxxxB", tcp_length, 6)
        else:
            pseudo = sender.address + receiver.address + struct.pack("!xBH", 6, tcp_length)
        checksum = internet_checksum(pseudo + segment)
        segment = segment[:16] + checksum.to_bytes(2, "big") + segment[18:]
        sender.next_seq = (sender.next_seq + len(payload)) % _MODULUS
        if self._ipv6:
            ip = _IPV6.pack(
                0x6 << 28, tcp_length, _PROTOCOL_TCP, TTL, sender.address, receiver.address
            )
            ethertype = _ETHERTYPE_IPV6
        else:
            ip = _ipv4_header(sender, receiver, 20 + tcp_length)
            ethertype = _ETHERTYPE_IPV4
        ethernet = _ETHERNET.pack(receiver.mac, sender.mac, ethertype)
        return record(ethernet + ip + segment, timestamp)


def _ipv4_header(sender: _Side, receiver: _Side, total_length: int) -> bytes:
    identification = sender.identification
    sender.identification = (identification + 1) & 0xFFFF
    fields = (0x45, 0, total_length, identification, _DONT_FRAGMENT, TTL, _PROTOCOL_TCP)
    header = _IPV4.pack(*fields, 0, sender.address, receiver.address)
    checksum = internet_checksum(header)
    return header[:10] + checksum.to_bytes(2, "big") + header[12:]


def build_pcap(
    master: Endpoint,
    outstation: Endpoint,
    frames: Iterable[tuple[Direction, bytes, Timestamp]],
) -> bytes:
    """A whole pcap file of one connection: the global header, the handshake (at the first
    frame's time) and a record per (direction, payload, timestamp)."""
    flow = TcpFlow(master, outstation)
    parts = [global_header()]
    parts.extend(flow.record(direction, payload, ts) for direction, payload, ts in frames)
    return b"".join(parts)
