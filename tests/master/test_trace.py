"""The frame log: records with growing ids and one-line summaries, ``after``, the bound, and
the pcap it makes, read back by tshark (with TCP and IP checksums validated)."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.link import Dropped, LinkFrame, LinkReader
from gridwire.master.trace import FrameLog
from tests.master.wire import READ_FRAME, from_outstation, read_frame
from tests.support.tshark import tshark_fields

# A response: transport C5 (FIR|FIN seq 5), application E3 (FIR|FIN|CON seq 3) 81 RESPONSE,
# IIN 90 00 (IIN1 bit 7 DEVICE_RESTART, bit 4 NEED_TIME).
RESPONSE_FRAME = from_outstation(bytes.fromhex("c5e3819000"))


def received(octets: bytes) -> LinkFrame | Dropped:
    [item] = LinkReader().feed(octets)
    return item


def test_sent_and_received_frames_read_in_one_line() -> None:
    log = FrameLog()
    sent = log.add_sent(READ_FRAME, 1000.0)
    assert (sent.id, sent.direction, sent.time_ms) == (1, "sent", 1000.0)
    assert sent.hex == READ_FRAME.hex()
    assert sent.summary == (
        "sent PRI UNCONFIRMED_USER_DATA 1->1024 | TR FIR FIN seq=5 | AL READ seq=3 FIR FIN"
    )
    assert (sent.source, sent.destination, sent.link_function) == (1, 1024, "UNCONFIRMED_USER_DATA")
    got = log.add_received(received(RESPONSE_FRAME), 1001.5)
    assert got.id == 2
    assert got.summary == (
        "received PRI UNCONFIRMED_USER_DATA 1024->1 | TR FIR FIN seq=5"
        " | AL RESPONSE seq=3 FIR FIN CON | IIN NEED_TIME DEVICE_RESTART"
    )
    assert got.dropped is None


def test_dropped_octets_are_kept_with_the_reason() -> None:
    log = FrameLog()
    record = log.add_received(received(b"\x01\x02\x03"), 5.0)
    assert record.dropped == "garbage before a start"
    assert record.hex == "010203"
    assert record.source is None and record.link_function is None
    assert record.summary == "received dropped 3 octets: garbage before a start"


@pytest.mark.parametrize(
    ("octets", "words"),
    [
        # The header CRC CA 8A inverted.
        (READ_FRAME[:8] + b"\x35\x75" + READ_FRAME[10:], "not a good frame: bad header CRC"),
        # The data block CRC inverted.
        (READ_FRAME[:16] + b"\x83\x32", "not a good frame: bad data CRC at block 1"),
        (READ_FRAME[:14], "not a good frame: incomplete frame (14 octets)"),
        (READ_FRAME + READ_FRAME, "not a good frame: 2 frames in one write"),
    ],
)
def test_what_the_master_wrote_is_logged_as_written(octets: bytes, words: str) -> None:
    record = FrameLog().add_sent(octets, 0.0)
    assert record.hex == octets.hex()
    assert record.summary.startswith("sent PRI UNCONFIRMED_USER_DATA 1->1024 LEN=11")
    assert record.summary.endswith(words)
    assert (record.source, record.destination) == (1, 1024)


def test_after_limit_and_clear() -> None:
    log = FrameLog(limit=3)
    for n in range(5):
        log.add_sent(read_frame(n, n), float(n))
    assert [r.id for r in log.after()] == [3, 4, 5]  # the two oldest were dropped
    assert [r.id for r in log.after(4)] == [5]
    assert log.after(5) == []
    assert log.last_id == 5
    assert log.clear() == 3
    assert log.after() == []
    assert log.add_sent(READ_FRAME, 9.0).id == 6  # ids keep growing
    with pytest.raises(ValueError, match="at least one frame"):
        FrameLog(limit=0)


@pytest.mark.interop
def test_pcap_reads_in_tshark_with_valid_checksums(tmp_path: Path, port: int) -> None:
    log = FrameLog()
    log.add_sent(read_frame(2, 4), 1_700_000_000_000.0)
    log.add_sent(READ_FRAME, 1_700_000_000_010.0)
    log.add_received(received(RESPONSE_FRAME), 1_700_000_000_012.5)
    log.add_received(received(b"\x01\x02\x03"), 1_700_000_000_013.0)
    capture = log.pcap(after=1, master=("127.0.0.1", 40000), outstation=("127.0.0.1", port))
    assert capture.frames == 3
    pcap = tmp_path / "trace.pcap"
    pcap.write_bytes(base64.b64decode(capture.pcap))
    rows = tshark_fields(
        pcap, port, ["frame.time_epoch", "dnp3.src", "dnp3.dst", "dnp3.al.func"], "dnp3"
    )
    assert [r[1:] for r in rows] == [["1", "1024", "1"], ["1024", "1", "129"]]
    assert float(rows[0][0]) == pytest.approx(1_700_000_000.010)
    assert float(rows[1][0]) == pytest.approx(1_700_000_000.0125)
    garbage = tshark_fields(pcap, port, ["tcp.payload"], "tcp.len==3")
    assert garbage == [["010203"]]
    statuses = tshark_fields(
        pcap, port, ["ip.checksum.status", "tcp.checksum.status"], "tcp", validate_checksums=True
    )
    assert len(statuses) == 6  # the handshake's three packets and the three records
    assert all(s == ["1", "1"] for s in statuses)  # 1: good


@given(st.lists(st.binary(max_size=400), max_size=5))
@settings(max_examples=300, deadline=None)
def test_any_octets_are_logged_without_an_error(writes: list[bytes]) -> None:
    log = FrameLog()
    for octets in writes:
        record = log.add_sent(octets, 0.0)
        assert record.hex == octets.hex()
        for item in LinkReader().feed(octets):
            log.add_received(item, 0.0)
    assert [r.id for r in log.after()] == list(range(1, log.last_id + 1))


def test_a_frame_the_link_layer_made_is_logged_as_if_it_were_read_again() -> None:
    # The wire logs a frame it made without reading it again (framed=True): its record is
    # the one reading it gives. Octets that are not one good frame come only with a
    # deviation, and are read (framed=False, the default).
    log = FrameLog()
    checked = log.record(log.log_sent(READ_FRAME, 5.0))
    trusted = log.record(log.log_sent(READ_FRAME, 5.0, framed=True))
    assert (trusted.id, checked.id) == (2, 1)
    assert dataclasses.replace(trusted, id=1) == checked
    cut = log.record(log.log_sent(READ_FRAME[:-3], 6.0))
    assert cut.summary.endswith("not a good frame: incomplete frame (15 octets)")
