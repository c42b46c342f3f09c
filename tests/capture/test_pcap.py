"""The pcap file format and the synthesised TCP flow, against octets derived by hand."""

from __future__ import annotations

import struct

import pytest

from gridwire.capture import CaptureError, Direction, TcpFlow, build_pcap, global_header
from gridwire.capture.pcap import microseconds, record
from gridwire.capture.tcpflow import internet_checksum
from tests.capture.pcap_reader import segments

RESET = bytes.fromhex("05 64 05 C0 01 00 00 04 E9 21")


def _ones_complement_sum(data: bytes) -> int:
    """RFC 1071 summed word by word, the slow and obvious way (independent of the code)."""
    if len(data) % 2:
        data += b"\x00"
    total = 0
    for i in range(0, len(data), 2):
        total += (data[i] << 8) | data[i + 1]
        total = (total & 0xFFFF) + (total >> 16)
    return total


def test_global_header_literal() -> None:
    # magic A1B2C3D4 (microseconds) little-endian, version 2.4, zone 0, sigfigs 0,
    # snaplen 65535, link type 1 (Ethernet).
    assert global_header() == bytes.fromhex(
        "D4 C3 B2 A1 02 00 04 00 00 00 00 00 00 00 00 00 FF FF 00 00 01 00 00 00"
    )


def test_record_literal_and_timestamps() -> None:
    # 1,000,001 us = 1 s + 1 us; lengths 3 and 3; then the packet.
    assert record(b"abc", 1_000_001) == bytes.fromhex(
        "01 00 00 00 01 00 00 00 03 00 00 00 03 00 00 00 61 62 63"
    )
    # 1.5 s as a float: 1 s + 500000 us (0x0007A120).
    assert record(b"", 1.5)[:8] == bytes.fromhex("01 00 00 00 20 A1 07 00")
    assert microseconds(1_700_000_000.123456) == 1_700_000_000_123_456


@pytest.mark.parametrize(
    "bad", [-1, -0.5, True, "1", 2**32 * 1_000_000, float("nan"), float("inf")]
)
def test_bad_timestamps(bad: object) -> None:
    with pytest.raises(CaptureError):
        microseconds(bad)  # type: ignore[arg-type]


def test_internet_checksum() -> None:
    # The IPv4 header example everyone quotes (192.168.0.1 -> 192.168.0.199, UDP, 115
    # octets): its checksum is B861.
    header = bytes.fromhex("45 00 00 73 00 00 40 00 40 11 00 00 C0 A8 00 01 C0 A8 00 C7")
    assert internet_checksum(header) == 0xB861
    # RFC 1071 section 3: 0001 + F203 + F4F5 + F6F7 = 2DDF0 -> DDF2; checksum ~DDF2 = 220D.
    assert internet_checksum(bytes.fromhex("00 01 F2 03 F4 F5 F6 F7")) == 0x220D
    # An odd length is padded with a zero octet.
    assert internet_checksum(b"\x01") == (~0x0100) & 0xFFFF


def test_handshake_and_first_segment_literal() -> None:
    flow = TcpFlow(("10.0.0.1", 40000), ("10.0.0.2", 30000), master_isn=1000, outstation_isn=2000)
    octets = flow.handshake(1_000_000) + flow.record(Direction.TO_OUTSTATION, RESET, 2.5)
    syn = bytes.fromhex(
        # record: 1 s, 0 us, 54 octets captured, 54 on the wire
        "01 00 00 00 00 00 00 00 36 00 00 00 36 00 00 00"
        # Ethernet: to 06:00:0a:00:00:02 (outstation) from 02:00:0a:00:00:01 (master), IPv4
        "06 00 0A 00 00 02 02 00 0A 00 00 01 08 00"
        # IPv4: 45, length 40, id 0, DF, TTL 64, TCP, checksum 26CE, 10.0.0.1 -> 10.0.0.2.
        # 4500+0028+0000+4000+4006+0A00+0001+0A00+0002 = D931, ~D931 = 26CE.
        "45 00 00 28 00 00 40 00 40 06 26 CE 0A 00 00 01 0A 00 00 02"
        # TCP: 40000 -> 30000, seq 1000 (ISN), ack 0, offset 5, SYN, window 65535,
        # checksum 8687: pseudo header 0A00+0001+0A00+0002+0006+0014 plus the header words
        # 9C40+7530+0000+03E8+0000+0000+5002+FFFF = 27976 -> 7978, ~7978 = 8687.
        "9C 40 75 30 00 00 03 E8 00 00 00 00 50 02 FF FF 86 87 00 00"
    )
    syn_ack = bytes.fromhex(
        "01 00 00 00 00 00 00 00 36 00 00 00 36 00 00 00"
        "02 00 0A 00 00 01 06 00 0A 00 00 02 08 00"
        "45 00 00 28 00 00 40 00 40 06 26 CE 0A 00 00 02 0A 00 00 01"
        # seq 2000 (07D0), ack 1001 (03E9), SYN|ACK (12)
        "75 30 9C 40 00 00 07 D0 00 00 03 E9 50 12 FF FF 7E A6 00 00"
    )
    ack = bytes.fromhex(
        "01 00 00 00 00 00 00 00 36 00 00 00 36 00 00 00"
        "06 00 0A 00 00 02 02 00 0A 00 00 01 08 00"
        # id 1 (the master's second packet): checksum one less, 26CD
        "45 00 00 28 00 01 40 00 40 06 26 CD 0A 00 00 01 0A 00 00 02"
        # seq 1001, ack 2001 (07D1), ACK (10)
        "9C 40 75 30 00 00 03 E9 00 00 07 D1 50 10 FF FF 7E A7 00 00"
    )
    data = bytes.fromhex(
        # 2.5 s: 2 s + 500000 us; 64 octets = 14 + 20 + 20 + 10
        "02 00 00 00 20 A1 07 00 40 00 00 00 40 00 00 00"
        "06 00 0A 00 00 02 02 00 0A 00 00 01 08 00"
        "45 00 00 32 00 02 40 00 40 06 26 C2 0A 00 00 01 0A 00 00 02"
        # seq 1001 (nothing sent yet), ack 2001, PSH|ACK (18)
        "9C 40 75 30 00 00 03 E9 00 00 07 D1 50 18 FF FF 89 4B 00 00"
    )
    assert octets == syn + syn_ack + ack + data + RESET
    # Every checksum in them verifies by the slow sum as well: a header with its checksum
    # in place sums to FFFF.
    for packet in (syn, syn_ack, ack, data + RESET):
        ip = packet[30:50]
        assert _ones_complement_sum(ip) == 0xFFFF
        tcp = packet[50:]
        pseudo = ip[12:20] + struct.pack("!xBH", 6, len(tcp))
        assert _ones_complement_sum(pseudo + tcp) == 0xFFFF


def test_sequence_numbers_follow_each_direction() -> None:
    frames = [
        (Direction.TO_OUTSTATION, bytes(18), 1.0),
        (Direction.TO_MASTER, bytes(27), 1.1),
        (Direction.TO_MASTER, bytes(10), 1.2),
        (Direction.TO_OUTSTATION, bytes(292), 1.3),
    ]
    capture = build_pcap(("127.0.0.1", 50000), ("127.0.0.1", 30001), frames)
    found = segments(capture)
    assert [s.flags for s in found] == [0x02, 0x12, 0x10, 0x18, 0x18, 0x18, 0x18]
    master_isn, outstation_isn = found[0].seq, found[1].seq
    assert found[1].ack == master_isn + 1
    sent = {50000: master_isn + 1, 30001: outstation_isn + 1}
    for s in found[3:]:
        assert s.seq == sent[s.source_port]
        assert s.ack == sent[s.destination_port]  # all the other side sent is acknowledged
        sent[s.source_port] += len(s.payload)
    assert [len(s.payload) for s in found[3:]] == [18, 27, 10, 292]
    assert [s.time_us for s in found] == [1_000_000] * 4 + [1_100_000, 1_200_000, 1_300_000]


def test_handshake_again_continues_the_numbers() -> None:
    flow = TcpFlow(("127.0.0.1", 1), ("127.0.0.1", 2))
    flow.record(Direction.TO_OUTSTATION, bytes(100), 0)
    later = flow.handshake(5) + flow.record(Direction.TO_MASTER, b"x", 6)
    again = segments(global_header() + later)
    first = segments(global_header() + TcpFlow(("127.0.0.1", 1), ("127.0.0.1", 2)).handshake(0))
    # The new SYN is numbered so that the next octet is the 101st the master sends.
    assert again[0].seq == first[0].seq + 100
    assert again[3].ack == again[0].seq + 1


def test_same_calls_same_octets() -> None:
    frames = [(Direction.TO_OUTSTATION, RESET, 3)]
    one = build_pcap(("192.0.2.1", 1), ("192.0.2.2", 2), frames)
    assert one == build_pcap(("192.0.2.1", 1), ("192.0.2.2", 2), frames)
    assert one != build_pcap(("192.0.2.1", 1), ("192.0.2.2", 3), frames)


def test_ipv6_flow() -> None:
    flow = TcpFlow(("::1", 40000), ("2001:db8::2", 30000), master_isn=0, outstation_isn=0)
    packet = flow.record(Direction.TO_OUTSTATION, RESET, 0)[3 * (16 + 14 + 40 + 20) :]
    ethernet, ip, tcp = packet[16:30], packet[30:70], packet[70:]
    assert ethernet[12:14] == b"\x86\xdd"
    assert ip[0] >> 4 == 6 and ip[6] == 6 and ip[7] == 64
    assert struct.unpack_from("!H", ip, 4)[0] == len(tcp) == 20 + len(RESET)
    pseudo = ip[8:40] + struct.pack("!IxxxB", len(tcp), 6)
    assert _ones_complement_sum(pseudo + tcp) == 0xFFFF
    assert tcp[20:] == RESET


@pytest.mark.parametrize(
    ("master", "outstation"),
    [
        (("localhost", 1), ("127.0.0.1", 2)),
        (("127.0.0.1", 1), ("::1", 2)),
        (("127.0.0.1", 70000), ("127.0.0.1", 2)),
        (("127.0.0.1", 1), ("127.0.0.1", -1)),
    ],
)
def test_flow_errors(master: tuple[str, int], outstation: tuple[str, int]) -> None:
    with pytest.raises(CaptureError):
        TcpFlow(master, outstation)


def test_payload_too_long() -> None:
    with pytest.raises(CaptureError):
        TcpFlow(("127.0.0.1", 1), ("127.0.0.1", 2)).record(Direction.TO_MASTER, bytes(70000), 0)
