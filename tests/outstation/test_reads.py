"""Reads, checked against response octets derived by hand from IEEE 1815-2012's layouts.

Every response starts: application control (FIR 0x80 | FIN 0x40 | CON 0x20 | UNS 0x10 |
sequence), function 0x81 (RESPONSE), IIN1, IIN2. A fresh outstation says DEVICE_RESTART
(IIN1.7, 0x80) and NEED_TIME (IIN1.4, 0x10): IIN1 0x90.
"""

from __future__ import annotations

from gridwire.dnp3.app.iin import IIN
from gridwire.outstation.database import Database
from gridwire.outstation.points import POINT_TYPES
from tests.outstation.conftest import make_wire, small_database
from tests.outstation.wire import Wire, hexes


def test_class_0_read_literal(wire: Wire) -> None:
    # READ (01) g60v1 (3C 01) qualifier 0x06 (all), sequence 0.
    answer = wire.send("C0 01 3C 01 06")
    assert hexes(answer) == [
        "C0 81 90 00"
        # g1v2, qualifier 0x00 (1-octet start/stop) 0..1: flags ONLINE|state 0x81, ONLINE 0x01
        " 01 02 00 00 01 81 01"
        # g3 is empty; g10v2 0..1: ONLINE, state off
        " 0A 02 00 00 01 01 01"
        # g20v1 0..0: flags 0x01, count 7 as u32
        " 14 01 00 00 00 01 07 00 00 00"
        # g21v1 0..0: flags 0x01, 0
        " 15 01 00 00 00 01 00 00 00 00"
        # g30v1 0..0: flags 0x01, -2 as i32 little-endian
        " 1E 01 00 00 00 01 FE FF FF FF"
        # g40v1 0..0: flags 0x01, 0
        " 28 01 00 00 00 01 00 00 00 00"
    ]


def test_range_read_and_variation_asked_for(wire: Wire) -> None:
    # READ g1v1 (packed) start-stop 0..1 (qualifier 0x00): bit 0 = bi0 on, bit 1 = bi1 off.
    assert hexes(wire.send("C1 01 01 01 00 00 01")) == ["C1 81 90 00 01 01 00 00 01 01"]
    # READ g30v5 (float with flag) 0..0: flags 0x01, -2.0 as an IEEE single = 00 00 00 C0.
    assert hexes(wire.send("C2 01 1E 05 00 00 00")) == ["C2 81 90 00 1E 05 00 00 00 01 00 00 00 C0"]
    # READ g30v2 (16-bit) by index, qualifier 0x17 count 1 index 0: sent back index-prefixed.
    assert hexes(wire.send("C3 01 1E 02 17 01 00")) == ["C3 81 90 00 1E 02 17 01 00 01 FE FF"]


def test_refusals_are_out_loud_and_whole(wire: Wire) -> None:
    # g1v2 0..1 and g30v1 5..9: no analog 5-9, so the whole read is refused PARAMETER_ERROR
    # (IIN2.2, 0x04) with no objects, not answered in part.
    answer = wire.ask("C4 01 01 02 00 00 01 1E 01 00 05 09")
    assert answer.iin & IIN.PARAMETER_ERROR
    assert answer.objects == []
    # g110 (octet strings) is not served: OBJECT_UNKNOWN (IIN2.1, 0x02).
    assert hexes(wire.send("C5 01 6E 00 06")) == ["C5 81 90 02"]
    # g1v9 does not exist: OBJECT_UNKNOWN.
    assert hexes(wire.send("C6 01 01 09 06")) == ["C6 81 90 02"]
    # Class 0 with a count qualifier is not a thing: PARAMETER_ERROR (0x04).
    assert hexes(wire.send("C7 01 3C 01 07 05")) == ["C7 81 90 04"]
    # A function the outstation does not serve (OPEN_FILE 0x19): FUNC_NOT_SUPPORTED (0x01).
    assert hexes(wire.send("C8 19")) == ["C8 81 90 01"]
    # An undefined function code (0x70): FUNC_NOT_SUPPORTED too.
    assert hexes(wire.send("C9 70")) == ["C9 81 90 01"]
    # The refusal bits belong to the refused response alone.
    assert hexes(wire.send("CA 01 3C 02 06")) == ["CA 81 90 00"]


def _with_a_gap() -> Database:
    """small_database with ai 2 = 300 beside ai 0: no ai 1."""
    db = small_database()
    db.add("ai", 2, 300)
    return db


def test_a_range_holding_an_index_with_no_point_is_refused_whole() -> None:
    # READ g30v1 0..2 (qualifier 0x00): ai 0 and ai 2 exist, ai 1 does not. The read is
    # refused whole, PARAMETER_ERROR (IIN2.2, 0x04), with no objects (range_gaps "refuse").
    wire = make_wire(_with_a_gap())
    assert hexes(wire.send("C4 01 1E 01 00 00 02")) == ["C4 81 90 04"]
    # By index (qualifier 0x17, count 2, indexes 0 and 1): the same.
    assert hexes(wire.send("C5 01 1E 01 17 02 00 01")) == ["C5 81 90 04"]
    # The range of the points there are is answered.
    assert hexes(wire.send("C6 01 1E 01 00 02 02")) == ["C6 81 90 00 1E 01 00 02 02 01 2C 01 00 00"]


def test_range_gaps_answer_returns_the_points_there_are_with_parameter_error() -> None:
    # range_gaps "answer" (opendnp3's way): the points there are, and PARAMETER_ERROR.
    wire = make_wire(_with_a_gap(), range_gaps="answer")
    assert hexes(wire.send("C4 01 1E 01 00 00 02")) == [
        "C4 81 90 04"
        # g30v1 0..0: flags 0x01, -2; g30v1 2..2: flags 0x01, 300 (0x012C) as i32
        " 1E 01 00 00 00 01 FE FF FF FF 1E 01 00 02 02 01 2C 01 00 00"
    ]
    # By index: ai 0 alone, index-prefixed (0x17, count 1, index 0).
    assert hexes(wire.send("C5 01 1E 01 17 02 00 01")) == [
        "C5 81 90 04 1E 01 17 01 00 01 FE FF FF FF"
    ]
    # A range with no point at all adds nothing; the other header is answered.
    assert hexes(wire.send("C6 01 01 02 00 00 01 1E 01 00 05 09")) == [
        "C6 81 90 04 01 02 00 00 01 81 01"
    ]


def test_read_of_the_time(wire: Wire) -> None:
    # READ g50v1 count 1 (qualifier 0x07): the device's time at now=1.0 is EPOCH + 1000 ms.
    answer = wire.ask("C0 01 32 01 07 01", now=1.0)
    assert answer.objects[0].value == 1_700_000_001_000


def _big_database(count: int) -> Database:
    db = small_database()
    for index in range(1, count):
        db.add("ai", index, index)
    return db


def _g30v1(indices: range) -> bytes:
    """g30v1 objects of ``_big_database``: flags ONLINE (01), then the value as a 32-bit
    little-endian integer (ai 0 is -2, FE FF FF FF; ai n is n)."""
    return b"".join(
        b"\x01" + (-2 if i == 0 else i).to_bytes(4, "little", signed=True) for i in indices
    )


def test_multi_fragment_response_waits_for_each_confirm() -> None:
    # 600 analogs of g30v1 (5 octets each) do not fit one 2048-octet fragment. Where the cut
    # falls: 2048 - 4 (application header) leaves 2044 for objects; the outstation keeps 11
    # of them for the object header (3 + a 4+4-octet range at most), so 2033 // 5 = 406
    # objects, 0..405, go first: header 1E 01 01 (2-octet start/stop) 00 00 95 01 (0..405),
    # 4 + 7 + 406 * 5 = 2041 octets. The other 194 (406..599) follow in 4 + 7 + 970 = 981.
    wire = make_wire(_big_database(600))
    first = wire.send("C3 01 1E 01 06", now=1.0)
    # FIR (0x80), not FIN, CON (0x20, not the last fragment), sequence 3: A3. IIN 90 00.
    assert hexes([f[:11] for f in first]) == ["A3 81 90 00 1E 01 01 00 00 95 01"]
    assert len(first[0]) == 2041
    assert first[0][11:] == _g30v1(range(406))
    assert wire.send("C2 00") == []  # a confirm of another sequence is ignored
    assert wire.poll(2.0) == []  # and nothing more goes out until the right one
    second = wire.send("C3 00", now=2.0)
    # Not FIR, FIN (0x40), no CON (no events, the last fragment), sequence 4: 44. 406..599
    # is 96 01 .. 57 02.
    assert hexes([f[:11] for f in second]) == ["44 81 90 00 1E 01 01 96 01 57 02"]
    assert len(second[0]) == 981
    assert second[0][11:] == _g30v1(range(406, 600))
    # The final fragment carries no events: no confirm awaited, so one means nothing.
    assert wire.session.deadline is None
    assert wire.send("C4 00", now=3.0) == []


def test_max_fragment_sets_where_the_cut_falls() -> None:
    # max_fragment 1000: 996 octets for objects, less the 11 kept for a header, is 985, so
    # 985 // 5 = 197 g30v1 objects a fragment. The read's sequence 14 wraps to 0 on the third.
    wire = make_wire(_big_database(600), max_fragment=1000)
    # 0..196: stop C4 fits one octet, qualifier 00 (1E 01 00 00 C4): 4 + 5 + 985 = 994.
    # Control FIR | CON | 14 = AE.
    first = wire.send("CE 01 1E 01 06", now=1.0)
    assert hexes([f[:9] for f in first]) == ["AE 81 90 00 1E 01 00 00 C4"]
    assert first[0][9:] == _g30v1(range(197))
    assert len(first[0]) == 994
    # 197..393 (C5 00 .. 89 01, qualifier 01): 4 + 7 + 985 = 996; CON | 15 = 2F.
    second = wire.send("CE 00", now=2.0)
    assert hexes([f[:11] for f in second]) == ["2F 81 90 00 1E 01 01 C5 00 89 01"]
    assert second[0][11:] == _g30v1(range(197, 394))
    assert len(second[0]) == 996
    # 394..590 (8A 01 .. 4E 02): 996 again; the sequence wraps from 15 to 0: CON | 0 = 20.
    third = wire.send("CF 00", now=3.0)
    assert hexes([f[:11] for f in third]) == ["20 81 90 00 1E 01 01 8A 01 4E 02"]
    assert third[0][11:] == _g30v1(range(394, 591))
    assert len(third[0]) == 996
    # The last 9, 591..599 (4F 02 .. 57 02): 4 + 7 + 45 = 56; FIN | 1 = 41, no CON.
    fourth = wire.send("C0 00", now=4.0)
    assert hexes([f[:11] for f in fourth]) == ["41 81 90 00 1E 01 01 4F 02 57 02"]
    assert fourth[0][11:] == _g30v1(range(591, 600))
    assert len(fourth[0]) == 56
    assert wire.send("C1 00", now=5.0) == []


def test_unconfirmed_multi_fragment_response_is_abandoned_on_a_new_request() -> None:
    wire = make_wire(_big_database(600))
    assert len(wire.send("C3 01 1E 01 06")) == 1
    answer = wire.ask("C4 01 3C 02 06")
    assert answer.control.seq == 4 and answer.control.fir and answer.control.fin
    assert wire.send("C3 00") == []  # the abandoned response's confirm now means nothing


def test_confirm_timeout_abandons_the_rest() -> None:
    wire = make_wire(_big_database(600), confirm_timeout=5.0)
    wire.send("C3 01 1E 01 06", now=1.0)
    assert wire.session.deadline == 6.0
    assert wire.poll(6.0) == []
    assert wire.send("C3 00", now=7.0) == []


def test_every_type_read_by_group_all() -> None:
    from gridwire.outstation.database_file import default_database

    wire = make_wire(default_database(count=3))
    groups = {"bi": 1, "dbi": 3, "bo": 10, "counter": 20, "frozen": 21, "ai": 30, "ao": 40}
    for seq, point_type in enumerate(POINT_TYPES):
        group = groups[point_type]
        answer = wire.ask(bytes((0xC0 | seq, 0x01, group, 0x00, 0x06)))
        assert [(o.type, o.index) for o in answer.objects] == [(point_type, i) for i in range(3)]
