"""Deferred file answers (D200) as octets derived by hand: the outstation answers a file
request named in ``files_defer`` with a null response and delivers the g70 object later as a
file event of ``files_event_class``, in a class read or unsolicited, held until confirmed.

OPEN_FILE (0x19) of "/a" for reading, block 1024, request id 1: g70v3 (46 03), qualifier 5B,
count 01, size 0x1C (26 fixed octets + 2 of name): name offset 0x1A, size 2; created (6),
permissions (2), key (4), file size (4) all 0; mode 1; block size 00 04; request id 01 00;
"/a" 2F 61.

Its answer, g70v4 (46 04 5B 01, size 0x0D): handle 1, file size 2 ("hi"), block size
00 04, request id 01 00, status 0 (SUCCESS).

IIN1: DEVICE_RESTART 0x80 | NEED_TIME 0x10, and CLASS_1_EVENTS 0x02 while the file event
waits (0x92); once a fragment carries it, the bit is clear (0x90).
"""

from __future__ import annotations

from pathlib import Path

from tests.outstation.conftest import make_wire
from tests.outstation.wire import Wire, hexes

OPEN = (
    "19 46 03 5B 01 1C 00 1A 00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
    " 01 00 00 04 01 00 2F 61"
)
OPENED = "46 04 5B 01 0D 00 01 00 00 00 02 00 00 00 00 04 01 00 00"


def _served(tmp_path: Path, **config: object) -> Wire:
    (tmp_path / "a").write_bytes(b"hi")
    return make_wire(files=tmp_path, files_defer=("OPEN_FILE",), **config)


def test_null_response_then_the_answer_in_a_class_read(tmp_path: Path) -> None:
    wire = _served(tmp_path)
    assert hexes(wire.send("C1 " + OPEN, now=1.0)) == ["C1 81 92 00"]
    # READ class 1 (g60v2, 0x06): the g70v4 with CON (it is an event), the class bit clear.
    assert hexes(wire.send("C2 01 3C 02 06", now=2.0)) == ["E2 81 90 00 " + OPENED]
    # Not confirmed: a new read gives it back and carries it again.
    assert hexes(wire.send("C3 01 3C 02 06", now=3.0)) == ["E3 81 90 00 " + OPENED]
    assert wire.send("C3 00", now=3.5) == []  # the confirm retires it
    assert hexes(wire.send("C4 01 3C 02 06", now=4.0)) == ["C4 81 90 00"]
    # The file it answered is open: its handle reads the data at once (READ is not deferred).
    block = "46 05 5B 01 08 00 01 00 00 00 00 00 00 00"
    assert hexes(wire.send("C5 01 " + block, now=5.0)) == [
        "C5 81 90 00 46 05 5B 01 0A 00 01 00 00 00 00 00 00 80 68 69"
    ]


def test_the_answer_in_its_own_class_only(tmp_path: Path) -> None:
    wire = _served(tmp_path, files_event_class=3)
    # Class 3 events waiting: IIN1.3 (0x08).
    assert hexes(wire.send("C1 " + OPEN, now=1.0)) == ["C1 81 98 00"]
    assert hexes(wire.send("C2 01 3C 02 06 3C 03 06", now=2.0)) == ["C2 81 98 00"]
    assert hexes(wire.send("C3 01 3C 04 06", now=3.0)) == ["E3 81 90 00 " + OPENED]


def test_the_answer_unsolicited(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"hi")
    wire = make_wire(
        files=tmp_path,
        files_defer=("OPEN_FILE",),
        unsolicited=True,
        unsolicited_classes=(1,),
    )
    assert wire.send("D0 00", now=0.5) == []  # the start's null unsolicited response confirmed
    # The null response, then at once an unsolicited response (F1: FIR FIN CON UNS, seq 1)
    # carrying the g70v4.
    assert hexes(wire.send("C1 " + OPEN, now=1.0)) == ["C1 81 92 00", "F1 82 90 00 " + OPENED]
    assert wire.send("D1 00", now=1.5) == []
    assert wire.session.deadline is None  # nothing left to repeat
