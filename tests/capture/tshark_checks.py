"""tshark run on the captures these tests write, with IP and TCP checksum validation on.

tests/support/tshark.py decodes with checksums unverified (Wireshark's default); these tests
must see Wireshark verify them, so they pass the two preferences that turn it on."""

from __future__ import annotations

from pathlib import Path

from tests.support.tshark import tshark_fields


def fields(pcap: Path, port: int, names: list[str], display_filter: str = "") -> list[list[str]]:
    """One list of field values per packet (DNP3 decoded on ``port``), checksums verified."""
    return tshark_fields(pcap, port, names, display_filter, validate_checksums=True)


def frame_numbers(pcap: Path, port: int, display_filter: str) -> list[int]:
    return [int(row[0]) for row in fields(pcap, port, ["frame.number"], display_filter)]


# Wireshark's expert severities (epan/proto.h): chat 0x200000, note 0x400000, warning
# 0x600000, error 0x800000.
_WARNING = 0x600000


def assert_clean(
    pcap: Path,
    port: int,
    packets: int,
    *,
    warned: tuple[int, ...] = (),
    malformed: tuple[int, ...] = (),
) -> None:
    """``packets`` packets, every IP and TCP checksum verified good (status 1), no TCP
    analysis flag (retransmission, lost segment, out of order...), and no packet malformed
    or drawing an expert warning or error but the frames numbered in ``malformed`` and
    ``warned`` (which a test expects, and says why)."""
    names = ["frame.number", "ip.checksum.status", "ipv6.version", "tcp.checksum.status"]
    rows = fields(pcap, port, [*names, "_ws.malformed", "_ws.expert.severity"])
    assert len(rows) == packets
    bad_form, warnings = [], []
    for number, ip_status, ipv6, tcp_status, broken, severities in rows:
        assert ip_status == "1" or ipv6 == "6", rows
        assert tcp_status == "1", rows
        if broken:
            bad_form.append(int(number))
        if any(int(s) >= _WARNING for s in severities.split(",") if s):
            warnings.append(int(number))
    assert bad_form == list(malformed)
    assert warnings == sorted({*warned, *malformed})
    assert frame_numbers(pcap, port, "tcp.analysis.flags") == []
