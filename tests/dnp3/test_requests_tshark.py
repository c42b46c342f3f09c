"""Every request the builders make, read by Wireshark's DNP3 dissector (tshark), an
independent reader: the function code, objects, qualifiers, indexes and values it finds must
be the ones intended, and no frame may be malformed.

Each request goes master (1) -> outstation (1024) in transport segments and link frames
(gridwire.dnp3.transport / link), one TCP segment each, in a pcap of one connection
(gridwire.capture); the TCP port is a free one, used only as a label for tshark's -d.

tshark 4.0 shows the function but not the objects of FREEZE_AT_TIME and ASSIGN_CLASS, and
flags a read of variation 0 by index prefix (g30v0 0x17) as "invalid for normally empty
object", though IEEE 1815-2012 lets a master read points so; read_points is checked here with
a variation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gridwire.capture import Direction, build_pcap
from gridwire.dnp3 import link, transport
from gridwire.dnp3 import requests as rq
from gridwire.dnp3.app.headers import all_header, range_header
from gridwire.dnp3.objects.controls import crob
from gridwire.dnp3.objects.records import AnalogCommand
from tests.support.tshark import tshark_fields

pytestmark = pytest.mark.interop

T = 1_700_000_000_000
WHEN = "Nov 14, 2023 22:13:20.000000000 UTC"
FIELDS = [
    "dnp3.src",
    "dnp3.dst",
    "dnp3.al.seq",
    "dnp3.al.uns",
    "dnp3.al.func",
    "dnp3.al.obj",
    "dnp3.al.objq.prefix",
    "dnp3.al.objq.range",
    "dnp3.al.range.start",
    "dnp3.al.range.stop",
    "dnp3.al.range.quantity",
    "dnp3.al.index",
    "dnp3.ctl.op",
    "dnp3.al.count",
    "dnp3.al.on_time",
    "dnp3.al.off_time",
    "dnp3.al.ctrlstatus",
    "dnp3.al.anaout.int",
    "dnp3.al.anaout.float",
    "dnp3.al.anaout.double",
    "dnp3.al.timestamp",
    "dnp3.al.bit",
    "_ws.malformed",
]
THIRTY = ",".join(str(i) for i in range(30))

# (what, builder, the fields tshark must find; fields not named must be empty)
CASES: list[tuple[str, Callable[[int], bytes], dict[str, str]]] = [
    (
        "integrity",
        rq.integrity_poll,
        {
            "dnp3.al.func": "1",
            "dnp3.al.obj": "0x3c02,0x3c03,0x3c04,0x3c01",
            "dnp3.al.objq.prefix": "0,0,0,0",
            "dnp3.al.objq.range": "6,6,6,6",
        },
    ),
    (
        "read class 0",
        lambda s: rq.read_classes(s, [0]),
        {
            "dnp3.al.func": "1",
            "dnp3.al.obj": "0x3c01",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "6",
        },
    ),
    (
        "read range",
        lambda s: rq.read_range(s, 30, 0, 0, 300),
        {
            "dnp3.al.func": "1",
            "dnp3.al.obj": "0x1e00",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "1",
            "dnp3.al.range.start": "0",
            "dnp3.al.range.stop": "300",
        },
    ),
    (
        "read all",
        lambda s: rq.read_all(s, 1, 2),
        {
            "dnp3.al.func": "1",
            "dnp3.al.obj": "0x0102",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "6",
        },
    ),
    (
        "read points",
        lambda s: rq.read_points(s, 30, 1, [3, 7]),
        {
            "dnp3.al.func": "1",
            "dnp3.al.obj": "0x1e01",
            "dnp3.al.objq.prefix": "1",
            "dnp3.al.objq.range": "7",
            "dnp3.al.range.quantity": "2",
            "dnp3.al.index": "3,7",
        },
    ),
    (
        "read attributes",
        lambda s: rq.read(s, range_header(0, 254, 0, 0)),
        {
            "dnp3.al.func": "1",
            "dnp3.al.obj": "0x00fe",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "0",
            "dnp3.al.range.start": "0",
            "dnp3.al.range.stop": "0",
        },
    ),
    (
        "write time",
        lambda s: rq.write_time(s, T),
        {
            "dnp3.al.func": "2",
            "dnp3.al.obj": "0x3201",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "7",
            "dnp3.al.range.quantity": "1",
            "dnp3.al.timestamp": WHEN,
        },
    ),
    (
        "write last recorded time",
        lambda s: rq.write_last_recorded_time(s, T),
        {
            "dnp3.al.func": "2",
            "dnp3.al.obj": "0x3203",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "7",
            "dnp3.al.range.quantity": "1",
            "dnp3.al.timestamp": WHEN,
        },
    ),
    (
        "clear restart",
        rq.clear_restart,
        {
            "dnp3.al.func": "2",
            "dnp3.al.obj": "0x5001",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "0",
            "dnp3.al.range.start": "7",
            "dnp3.al.range.stop": "7",
            "dnp3.al.bit": "0",
        },
    ),
    (
        "direct operate latch on, 0x28",
        lambda s: rq.command(s, "DIRECT_OPERATE", crobs=[(0, crob("LATCH_ON"))], qualifier=0x28),
        {
            "dnp3.al.func": "5",
            "dnp3.al.obj": "0x0c01",
            "dnp3.al.objq.prefix": "2",
            "dnp3.al.objq.range": "8",
            "dnp3.al.range.quantity": "1",
            "dnp3.al.index": "0",
            "dnp3.ctl.op": "3",
            "dnp3.al.count": "1",
            "dnp3.al.on_time": "100",
            "dnp3.al.off_time": "100",
            "dnp3.al.ctrlstatus": "0",
        },
    ),
    (
        # 30 CROBs (364 octets): two transport segments and link frames, reassembled
        "operate thirty pulses",
        lambda s: rq.command(s, "OPERATE", crobs=[(i, crob("PULSE_ON")) for i in range(30)]),
        {
            "dnp3.al.func": "4",
            "dnp3.al.obj": "0x0c01",
            "dnp3.al.objq.prefix": "1",
            "dnp3.al.objq.range": "7",
            "dnp3.al.range.quantity": "30",
            "dnp3.al.index": THIRTY,
            "dnp3.ctl.op": ",".join(["1"] * 30),
            "dnp3.al.count": ",".join(["1"] * 30),
            "dnp3.al.on_time": ",".join(["100"] * 30),
            "dnp3.al.off_time": ",".join(["100"] * 30),
            "dnp3.al.ctrlstatus": ",".join(["0"] * 30),
        },
    ),
    (
        "select analogs",
        lambda s: rq.command(s, "SELECT", analogs=[(0, 100), (1, 2.5)]),
        {
            "dnp3.al.func": "3",
            "dnp3.al.obj": "0x2901,0x2903",
            "dnp3.al.objq.prefix": "1,1",
            "dnp3.al.objq.range": "7,7",
            "dnp3.al.range.quantity": "1,1",
            "dnp3.al.index": "0,1",
            "dnp3.al.anaout.int": "100",
            "dnp3.al.anaout.float": "2.5",
            "dnp3.al.ctrlstatus": "0,0",
        },
    ),
    (
        "direct operate analog 16-bit",
        lambda s: rq.command(s, "DIRECT_OPERATE", analogs=[(2, -5)], variation=2),
        {
            "dnp3.al.func": "5",
            "dnp3.al.obj": "0x2902",
            "dnp3.al.objq.prefix": "1",
            "dnp3.al.objq.range": "7",
            "dnp3.al.range.quantity": "1",
            "dnp3.al.index": "2",
            "dnp3.al.anaout.int": "-5",
            "dnp3.al.ctrlstatus": "0",
        },
    ),
    (
        "direct operate no ack, analog double",
        lambda s: rq.command(
            s, "DIRECT_OPERATE_NR", analogs=[(3, AnalogCommand(-1.5, "SUCCESS"))], variation=4
        ),
        {
            "dnp3.al.func": "6",
            "dnp3.al.obj": "0x2904",
            "dnp3.al.objq.prefix": "1",
            "dnp3.al.objq.range": "7",
            "dnp3.al.range.quantity": "1",
            "dnp3.al.index": "3",
            "dnp3.al.anaout.double": "-1.5",
            "dnp3.al.ctrlstatus": "0",
        },
    ),
    (
        "freeze",
        rq.freeze,
        {
            "dnp3.al.func": "7",
            "dnp3.al.obj": "0x1400",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "6",
        },
    ),
    (
        "freeze and clear no ack, range",
        lambda s: rq.freeze(s, clear=True, ack=False, ranges=[(0, 9)]),
        {
            "dnp3.al.func": "10",
            "dnp3.al.obj": "0x1400",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "0",
            "dnp3.al.range.start": "0",
            "dnp3.al.range.stop": "9",
        },
    ),
    ("freeze at time", lambda s: rq.freeze_at_time(s, T, 60000), {"dnp3.al.func": "11"}),
    ("cold restart", rq.cold_restart, {"dnp3.al.func": "13"}),
    ("warm restart", rq.warm_restart, {"dnp3.al.func": "14"}),
    ("delay measure", rq.delay_measure, {"dnp3.al.func": "23"}),
    ("record current time", rq.record_current_time, {"dnp3.al.func": "24"}),
    (
        "enable unsolicited",
        rq.enable_unsolicited,
        {
            "dnp3.al.func": "20",
            "dnp3.al.obj": "0x3c02,0x3c03,0x3c04",
            "dnp3.al.objq.prefix": "0,0,0",
            "dnp3.al.objq.range": "6,6,6",
        },
    ),
    (
        "disable unsolicited",
        lambda s: rq.disable_unsolicited(s, [2]),
        {
            "dnp3.al.func": "21",
            "dnp3.al.obj": "0x3c03",
            "dnp3.al.objq.prefix": "0",
            "dnp3.al.objq.range": "6",
        },
    ),
    (
        "assign class",
        lambda s: rq.assign_class(s, [(2, [all_header(1)]), (3, [range_header(30, 0, 0, 9)])]),
        {"dnp3.al.func": "22"},
    ),
    ("confirm", rq.confirm, {"dnp3.al.func": "0", "dnp3.al.uns": "0"}),
    (
        "confirm unsolicited",
        lambda s: rq.confirm(s, unsolicited=True),
        {"dnp3.al.func": "0", "dnp3.al.uns": "1"},
    ),
    ("any function", lambda s: rq.request(s, "SAVE_CONFIG"), {"dnp3.al.func": "19"}),
]


def _capture(path: Path, port: int, fragments: list[bytes]) -> None:
    frames = []
    tseq, stamp = 0, 1_000_000.0
    for fragment in fragments:
        segments, tseq = transport.segment(fragment, tseq)
        for tpdu in segments:
            frame = link.user_data(1024, 1, tpdu, from_master=True)
            frames.append((Direction.TO_OUTSTATION, frame, stamp))
            stamp += 0.01
    path.write_bytes(build_pcap(("127.0.0.1", 20001), ("127.0.0.1", port), frames))


def test_tshark_reads_every_request_as_intended(tmp_path: Path, port: int) -> None:
    pcap = tmp_path / "requests.pcap"
    _capture(pcap, port, [build(k % 16) for k, (_, build, _) in enumerate(CASES)])
    rows = tshark_fields(pcap, port, FIELDS, "dnp3.al.ctl")
    assert len(rows) == len(CASES)
    for k, ((what, _, expected), row) in enumerate(zip(CASES, rows, strict=True)):
        found = dict(zip(FIELDS, row, strict=True))
        assert (found.pop("dnp3.src"), found.pop("dnp3.dst")) == ("1", "1024"), what
        assert found.pop("dnp3.al.seq") == str(k % 16), what
        wanted = {"dnp3.al.uns": "0"} | expected
        assert found == {name: wanted.get(name, "") for name in found}, what


def test_no_frame_is_malformed_or_warned(tmp_path: Path, port: int) -> None:
    pcap = tmp_path / "requests.pcap"
    _capture(pcap, port, [build(k % 16) for k, (_, build, _) in enumerate(CASES)])
    flagged = "_ws.malformed || _ws.expert.severity >= warning"
    assert tshark_fields(pcap, port, ["frame.number"], flagged) == []
    # every link header and data block checksum verified good
    statuses = tshark_fields(
        pcap, port, ["dnp.hdr.CRC.status", "dnp.data_chunk.CRC.status"], "dnp3"
    )
    assert len(statuses) == len(CASES) + 1  # the 30-CROB request took two frames
    assert all(set(h.split(",")) == {"1"} and set(d.split(",")) == {"1"} for h, d in statuses)
