"""RotatingPcapWriter: rotation by size, numbering, what each file begins with, and tshark
reading every file it leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridwire.capture import Direction, RotatingPcapWriter, TcpFlow
from gridwire.dnp3.link import user_data
from gridwire.errors import ConfigError
from tests.capture.pcap_reader import records, segments
from tests.capture.tshark_checks import assert_clean, fields

READ_CLASS_0 = bytes.fromhex("C0 01 3C 01 06")
# Sizes of an IPv4 flow's records: 16 (record header) + 14 (Ethernet) + 20 (IPv4) + 20 (TCP).
OVERHEAD = 70
HANDSHAKE = 3 * OVERHEAD
FILE_HEADER = 24


def _frame(number: int) -> bytes:
    """An 18-octet READ frame whose transport sequence number tells it apart."""
    return user_data(1024, 1, bytes([0xC0 | number]) + READ_CLASS_0, from_master=True)


def _data(path: Path) -> list[bytes]:
    return [s.payload for s in segments(path.read_bytes()) if s.payload]


def test_rotation_keeps_the_newest(tmp_path: Path) -> None:
    path = tmp_path / "cap.pcap"
    flow = TcpFlow(("127.0.0.1", 40000), ("127.0.0.1", 30000))
    # Room for the file header, the handshake and three 88-octet records.
    limit = FILE_HEADER + HANDSHAKE + 3 * (OVERHEAD + 18)
    with RotatingPcapWriter(path, max_bytes=limit, keep=2) as writer:
        for number in range(10):
            writer.write(flow, Direction.TO_OUTSTATION, _frame(number), 1000.0 + number)
            assert writer.size <= limit
    # Files of frames 0-2, 3-5, 6-8, 9: the first is gone (keep=2).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap.pcap", "cap.pcap.1", "cap.pcap.2"]
    assert _data(path) == [_frame(9)]
    assert _data(tmp_path / "cap.pcap.1") == [_frame(n) for n in (6, 7, 8)]
    assert _data(tmp_path / "cap.pcap.2") == [_frame(n) for n in (3, 4, 5)]
    assert (tmp_path / "cap.pcap.2").stat().st_size == limit
    # Each file begins with its own handshake, numbered to continue the stream: the SYN's
    # number is one before the first octet of data in that file.
    for name in ("cap.pcap", "cap.pcap.1", "cap.pcap.2"):
        found = segments((tmp_path / name).read_bytes())
        assert [s.flags for s in found[:3]] == [0x02, 0x12, 0x10]
        assert found[3].seq == found[0].seq + 1
        assert found[0].time_us == found[3].time_us
    assert segments((tmp_path / "cap.pcap.1").read_bytes())[3].seq == (
        segments((tmp_path / "cap.pcap.2").read_bytes())[3].seq + 3 * 18
    )


def test_existing_capture_is_rotated_away(tmp_path: Path) -> None:
    path = tmp_path / "cap.pcap"
    path.write_bytes(b"an earlier run")
    (tmp_path / "cap.pcap.1").write_bytes(b"older still")
    flow = TcpFlow(("127.0.0.1", 1), ("127.0.0.1", 2))
    writer = RotatingPcapWriter(path, max_bytes=10_000, keep=3)
    assert path.read_bytes() == b"an earlier run"  # nothing happens before the first record
    writer.write(flow, Direction.TO_MASTER, _frame(1), 5)
    writer.close()
    assert (tmp_path / "cap.pcap.1").read_bytes() == b"an earlier run"
    assert (tmp_path / "cap.pcap.2").read_bytes() == b"older still"
    assert _data(path) == [_frame(1)]


def test_keep_zero_and_a_record_larger_than_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "cap.pcap"
    flow = TcpFlow(("127.0.0.1", 1), ("127.0.0.1", 2))
    with RotatingPcapWriter(path, max_bytes=100, keep=0) as writer:
        writer.write(flow, Direction.TO_OUTSTATION, _frame(1), 1)
        assert writer.size == FILE_HEADER + HANDSHAKE + OVERHEAD + 18  # over 100, alone
        writer.write(flow, Direction.TO_OUTSTATION, _frame(2), 2)
    assert [p.name for p in tmp_path.iterdir()] == ["cap.pcap"]
    assert _data(path) == [_frame(2)]


def test_each_flow_introduced_in_each_file(tmp_path: Path) -> None:
    path = tmp_path / "cap.pcap"
    first = TcpFlow(("127.0.0.1", 40001), ("127.0.0.1", 30001))
    second = TcpFlow(("127.0.0.1", 40002), ("127.0.0.1", 30002))
    limit = FILE_HEADER + 2 * HANDSHAKE + 2 * (OVERHEAD + 18)
    with RotatingPcapWriter(path, max_bytes=limit, keep=5) as writer:
        for number in range(4):
            writer.write(first, Direction.TO_OUTSTATION, _frame(number), number)
            writer.write(second, Direction.TO_MASTER, _frame(number), number + 0.5)
    for name in ("cap.pcap", "cap.pcap.1"):
        found = segments((tmp_path / name).read_bytes())
        # first: SYN, SYN-ACK, ACK, data; second: the same; both flows in each file.
        assert [s.flags for s in found] == [0x02, 0x12, 0x10, 0x18] * 2
        assert {s.source_port for s in found[:4]} == {40001, 30001}
        assert {s.source_port for s in found[4:]} == {40002, 30002}


def test_records_are_whole_on_disk_at_once(tmp_path: Path) -> None:
    path = tmp_path / "cap.pcap"
    writer = RotatingPcapWriter(path, max_bytes=1 << 20, keep=1)
    writer.write(TcpFlow(("127.0.0.1", 1), ("127.0.0.1", 2)), Direction.TO_MASTER, b"x", 3)
    # Not closed: the file already holds the header, the handshake and the record.
    assert len(records(path.read_bytes())) == 4
    writer.close()
    writer.close()


@pytest.mark.parametrize(("max_bytes", "keep"), [(0, 1), (100, -1)])
def test_bad_settings(tmp_path: Path, max_bytes: int, keep: int) -> None:
    with pytest.raises(ConfigError):
        RotatingPcapWriter(tmp_path / "x.pcap", max_bytes=max_bytes, keep=keep)


@pytest.mark.interop
def test_tshark_reads_every_rotated_file(tmp_path: Path, port: int) -> None:
    path = tmp_path / "cap.pcap"
    flow = TcpFlow(("127.0.0.1", 49152), ("127.0.0.1", port))
    limit = FILE_HEADER + HANDSHAKE + 4 * (OVERHEAD + 18)
    with RotatingPcapWriter(path, max_bytes=limit, keep=3) as writer:
        for number in range(10):
            when = 1_700_000_000.0 + number
            if number % 2 == 0:
                writer.write(flow, Direction.TO_OUTSTATION, _frame(number), when)
            else:  # a response: transport C0|n, application C0 81 00 00
                tpdu = bytes([0xC0 | number, 0xC0, 0x81, 0, 0])
                response = user_data(1, 1024, tpdu, from_master=False)
                writer.write(flow, Direction.TO_MASTER, response, when)
    files = {"cap.pcap": 2, "cap.pcap.1": 4, "cap.pcap.2": 4}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)
    for name, frames in files.items():
        assert_clean(tmp_path / name, port, packets=3 + frames)
        rows = fields(tmp_path / name, port, ["dnp3.al.func"], "dnp3")
        assert [r[0] for r in rows] == ["1", "129"] * (frames // 2)
