"""Responses built with encode_objects, one per variation of the library, read by Wireshark's
DNP3 dissector (tshark): an independent check of each layout. Where tshark 4.0 knows the
variation, the frame must not be malformed and the index, value, status and time it reads
must be the ones encoded.

tshark 4.0 does not know g31v1-6, g33v1-4, g43v1, g43v3, g50v4, g51v2, g52v1, g70v2, g70v7 or
g70v8 (it reports "Unknown Object\\Variation", and after g43v1/v3 reads on as a new header);
it shows every g80v1 point with the first point's bit, so g80 values are not compared; and it
shows nothing of a g50v2 but its header.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gridwire.capture import Direction, build_pcap
from gridwire.dnp3 import link, transport
from gridwire.dnp3.app.fragments import encode_response
from gridwire.dnp3.objects.controls import crob
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.records import AnalogCommand, CommandEvent, FileCommand
from gridwire.dnp3.objects.table import VARIATIONS, Layout, Variation, lookup
from tests.support.tshark import tshark_fields

pytestmark = pytest.mark.interop

T = 1_700_000_000_000
WHEN = "Nov 14, 2023 22:13:20.000000000 UTC"
UNKNOWN_TO_TSHARK = {(31, v) for v in range(1, 7)} | {(33, v) for v in range(1, 5)}
UNKNOWN_TO_TSHARK |= {(43, 1), (43, 3), (50, 4), (51, 2), (52, 1), (70, 2), (70, 7), (70, 8)}
VALUES = [
    "dnp3.al.ana.int",
    "dnp3.al.ana.float",
    "dnp3.al.ana.double",
    "dnp3.al.anaout.int",
    "dnp3.al.anaout.float",
    "dnp3.al.anaout.double",
    "dnp3.al.cnt",
    "dnp3.al.time_delay",
]
FIELDS = [
    "dnp3.al.obj",
    "dnp3.al.index",
    "dnp3.al.point_index",
    "dnp3.al.ctrlstatus",
    "dnp3.al.timestamp",
    "dnp3.al.reltimestamp",
    "dnp3.al.octet_string",
    "dnp3.al.file_name",
    "_ws.malformed",
    *VALUES,
]


def _roles(decl: Variation) -> set[str]:
    return {role for f in decl.fields for role, _ in f.reads}


def _case(decl: Variation) -> tuple[Item, dict[str, str]]:
    """The item encoded for a variation and what tshark must read back."""
    index = 5 if decl.indexed else None
    number: int | float = 2.5 if any(f.float32 or "d" in f.read_code for f in decl.fields) else 9
    expect = {"index": "5" if decl.indexed else "0"}
    roles = _roles(decl)
    if "sync" in roles:
        if decl.group == 2:  # tshark 4.0 shows no relative time of a g4v3
            expect["dnp3.al.reltimestamp"] = "0.010000000"  # 10 ms after the CTO
    elif "time" in roles and decl.group not in (50, 51):
        expect["dnp3.al.timestamp"] = WHEN
    if decl.group == 12:
        return Item(index, crob("PULSE_ON")), expect | {"dnp3.al.ctrlstatus": "0"}
    if decl.record is AnalogCommand:
        item = Item(index, AnalogCommand(number, "SUCCESS"), time_ms=T)
        return item, expect | {"dnp3.al.ctrlstatus": "0", "value": str(number)}
    if decl.record is CommandEvent:
        item = Item(index, CommandEvent(True, "NO_SELECT"), time_ms=T)
        return item, expect | {"dnp3.al.ctrlstatus": "2"}
    if decl.group in (50, 51):
        return Item(None, T), expect | {"dnp3.al.timestamp": WHEN}
    if decl.free is not None:
        return Item(None, FileCommand("f.txt", T, 0o644, 0, 10, 1, 512, 3)), {
            "dnp3.al.file_name": "f.txt"
        }
    if decl.point_type in ("bi", "bo", "dbi"):
        return Item(index, 2 if decl.point_type == "dbi" else True, time_ms=T), expect
    if decl.group >= 110:
        return Item(index, b"a" * decl.variation), expect | {"dnp3.al.octet_string": "61" * 3}
    return Item(index, number, time_ms=T), expect | {"value": str(number)}


CHECKED = [
    v
    for v in VARIATIONS
    if (v.layout is Layout.FIXED and (v.group, v.variation) not in UNKNOWN_TO_TSHARK | {(50, 2)})
    or (v.group, v.variation) == (70, 3)
]


def _body(decl: Variation) -> bytes:
    item, _ = _case(decl)
    if "sync" in _roles(decl):
        cto = encode_objects(51, 1, [Item(None, T - 10)])
        return cto + encode_objects(decl.group, decl.variation, [item], cto_ms=T - 10)
    return encode_objects(decl.group, decl.variation, [item])


def test_tshark_reads_each_layout_as_encoded(tmp_path: Path, port: int) -> None:
    frames = []
    tseq = 0
    for k, decl in enumerate([*CHECKED, lookup(110, 3)]):
        assert decl is not None
        fragment = encode_response(0xC0 | k % 16, "RESPONSE", 0, _body(decl))
        segments, tseq = transport.segment(fragment, tseq)
        frames += [
            (Direction.TO_MASTER, link.user_data(1, 1024, tpdu, from_master=False), 1.0 + k)
            for tpdu in segments
        ]
    pcap = tmp_path / "responses.pcap"
    pcap.write_bytes(build_pcap(("127.0.0.1", 20001), ("127.0.0.1", port), frames))
    rows = tshark_fields(pcap, port, FIELDS, "dnp3.al.ctl")
    assert len(rows) == len(CHECKED) + 1
    for decl, row in zip([*CHECKED, lookup(110, 3)], rows, strict=True):
        assert decl is not None
        what = f"g{decl.group}v{decl.variation}"
        found = dict(zip(FIELDS, row, strict=True))
        _, expect = _case(decl)
        assert (
            found["dnp3.al.obj"].split(",")[-1] == f"0x{decl.group:02x}{decl.variation:02x}"[:6]
            or decl.group >= 110
        ), what
        assert found["_ws.malformed"] == "", what
        if "index" in expect:
            index = found["dnp3.al.index"] or found["dnp3.al.point_index"]
            assert index.split(",")[-1] == expect.pop("index"), what
        values = [found[name] for name in VALUES if found[name]]
        assert values == ([expect.pop("value")] if "value" in expect else []), what
        for name, wanted in expect.items():
            assert found[name] == wanted, what
