"""Captures of DNP3 traffic as pcap files that Wireshark reads.

:mod:`.pcap` writes the file format, :mod:`.tcpflow` wraps each DNP3 frame in the Ethernet,
IP and TCP framing of one connection (valid checksums, a handshake, consistent sequence
numbers), and :mod:`.rotating` writes records to a file rotated by size.
"""

from gridwire.capture.pcap import CaptureError, Timestamp, global_header
from gridwire.capture.rotating import RotatingPcapWriter
from gridwire.capture.tcpflow import Direction, Endpoint, TcpFlow, build_pcap

__all__ = [
    "CaptureError",
    "Direction",
    "Endpoint",
    "RotatingPcapWriter",
    "TcpFlow",
    "Timestamp",
    "build_pcap",
    "global_header",
]
