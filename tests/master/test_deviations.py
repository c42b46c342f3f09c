"""Deviations: what each puts on the wire, checked octet by octet against frames built by hand
and read back by tshark from a pcap of what the hook outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.capture import Direction
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import RequestError
from gridwire.master import gate
from gridwire.master.deviations import DEVIATIONS, Deviations
from tests.dnp3.reference_crc import crc_le
from tests.master.wire import (
    OUTSTATION,
    READ_CLASS0,
    READ_FRAME,
    from_master,
    from_outstation,
    read_frame,
)
from tests.master.wire import decode as tshark_decode

OUT = Direction.TO_OUTSTATION
IN = Direction.TO_MASTER

# A solicited response with CON (application E3 = FIR|FIN|CON, seq 3; 81 RESPONSE; IIN 00 00)
# and the master's confirmation of it (C3 = FIR|FIN seq 3; 00 CONFIRM), each one segment.
RESPONSE_FRAME = from_outstation(bytes.fromhex("c5e3810000"))
CONFIRM_FRAME = from_master(bytes.fromhex("c6c300"))
# An unsolicited response (F2 = FIR|FIN|CON|UNS, seq 2; 82 UNSOLICITED_RESPONSE) and its
# confirmation (D2 = FIR|FIN|UNS, seq 2; 00 CONFIRM).
UNSOLICITED_FRAME = from_outstation(bytes.fromhex("c0f2820000"))
UNSOLICITED_CONFIRM_FRAME = from_master(bytes.fromhex("c7d200"))


def on(name: str, value: object = True) -> Deviations:
    deviations = Deviations()
    deviations.set({name: value})
    return deviations


def request(
    deviations: Deviations,
    frames: list[bytes] | None = None,
    function: FunctionCode | None = FunctionCode.READ,
) -> list[bytes]:
    out = deviations.outgoing("request", function, frames or [READ_FRAME], 100.0)
    assert all(delay == 0.0 for delay, _ in out)
    return [octets for _, octets in out]


def later_reads(count: int) -> list[tuple[Direction, bytes, float]]:
    """Good READs after the deviation, so a frame left open is completed in the capture."""
    return [(OUT, read_frame((4 + n) % 16, (6 + n) % 64), 2.0 + n) for n in range(count)]


TRANSPORT = ["dnp3.tr.fir", "dnp3.tr.fin", "dnp3.tr.seq"]


def on_wire(tmp_path: Path, port: int, frames: list[bytes], fields: list[str]) -> list[list[str]]:
    """tshark's fields of each DNP3 frame among ``frames``, written to the outstation."""
    return tshark_decode(tmp_path, port, [(OUT, f, 1.0) for f in frames], fields, "dnp3")


# ---------------------------------------------------------------------------------------


def test_hand_built_read_frame_is_the_standard_layout() -> None:
    # 05 64 | LENGTH 0B = 5 + 6 octets of user data | CONTROL C4 | DST 1024 = 00 04 |
    # SRC 1 = 01 00 | header CRC CA 8A | C5 C3 01 3C 01 06 | data CRC 7C CD
    assert READ_FRAME.hex(" ") == "05 64 0b c4 00 04 01 00 ca 8a c5 c3 01 3c 01 06 7c cd"


def test_every_deviation_is_off_by_default() -> None:
    deviations = Deviations()
    assert deviations.on == {}
    assert not deviations
    for kind in ("request", "confirm", "unsolicited_confirm", "link"):
        assert deviations.outgoing(kind, None, [READ_FRAME], 0.0) == [(0.0, READ_FRAME)]


def test_set_turns_on_and_off_and_answers_with_those_on() -> None:
    deviations = Deviations()
    assert deviations.set({"silence": True, "late_confirmation": 2.5}) == {
        "silence": True,
        "late_confirmation": 2.5,
    }
    assert deviations.set({"silence": False}) == {"late_confirmation": 2.5}
    assert deviations.set({"late_confirmation": None}) == {}
    assert deviations.set({"late_confirmation": True, "endless_series": True}) == {
        "late_confirmation": 10.0,
        "endless_series": 64,
    }


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"no_such_thing": True}, "unknown deviation no_such_thing"),
        ({"silence": 1}, "silence takes true or false"),
        ({"silence": "yes"}, "silence takes true or false"),
        ({"late_confirmation": 0}, "late_confirmation takes"),
        ({"late_confirmation": -1.0}, "late_confirmation takes"),
        ({"late_confirmation": float("nan")}, "late_confirmation takes"),
        ({"endless_series": 0}, "endless_series takes"),
        ({"endless_series": 1.5}, "endless_series takes"),
        ({"second_master_address": 0xFFF0}, "second_master_address takes"),
        ({"second_master_address": "2"}, "second_master_address takes"),
    ],
)
def test_set_refuses_unknown_names_and_bad_values(changes: dict[str, object], words: str) -> None:
    deviations = Deviations()
    deviations.set({"truncate": True})
    with pytest.raises(RequestError, match=words):
        deviations.set({"repeat_request": True, **changes})
    assert deviations.on == {"truncate": True}  # all or nothing


def test_the_fourteen_deviations_of_the_issue_are_known() -> None:
    assert set(DEVIATIONS) == {
        "silence",
        "repeat_request",
        "second_master_address",
        "corrupt_header_crc",
        "corrupt_body_crc",
        "truncate",
        "overstate_length",
        "break_transport_sequence",
        "orphan_segment",
        "endless_series",
        "withhold_confirmation",
        "late_confirmation",
        "wrong_confirmation_sequence",
        "withhold_unsolicited_confirmation",
    }


# --- requests ----------------------------------------------------------------------------


@pytest.mark.interop
def test_silence_writes_nothing_of_any_kind(tmp_path: Path, port: int, tshark: None) -> None:
    deviations = on("silence")
    for kind in ("request", "confirm", "unsolicited_confirm", "link"):
        assert deviations.outgoing(kind, None, [READ_FRAME], 0.0) == []
    # On the wire: the response arrives and nothing the hook gave follows it.
    written = deviations.outgoing("confirm", FunctionCode.CONFIRM, [CONFIRM_FRAME], 0.0)
    writes = [(IN, RESPONSE_FRAME, 1.0)] + [(OUT, octets, 1.1) for _, octets in written]
    rows = tshark_decode(tmp_path, port, writes, ["dnp3.al.func", "dnp3.dst"], "dnp3")
    assert rows == [["129", "1"]]


@pytest.mark.interop
def test_repeat_request_sends_the_same_fragment_twice(
    tmp_path: Path, port: int, tshark: None
) -> None:
    out = request(on("repeat_request"))
    assert out == [READ_FRAME, READ_FRAME]
    rows = on_wire(tmp_path, port, out, ["dnp3.al.func", "dnp3.al.seq", "dnp3.tr.seq"])
    assert rows == [["1", "3", "5"], ["1", "3", "5"]]


@pytest.mark.interop
def test_second_master_address(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("second_master_address"))
    # The same frame from source 2: the header and its CRC change, the data does not.
    assert out == [from_master(bytes((0xC5,)) + READ_CLASS0, source=2)]
    given = request(on("second_master_address", 77))
    assert given == [from_master(bytes((0xC5,)) + READ_CLASS0, source=77)]
    rows = tshark_decode(
        tmp_path,
        port,
        [(OUT, out[0], 1.0), (OUT, given[0], 1.1)],
        ["dnp3.src", "dnp3.dst", "dnp.hdr.CRC.status", "dnp3.al.func"],
        "dnp3",
    )
    assert rows == [["2", str(OUTSTATION), "1", "1"], ["77", str(OUTSTATION), "1", "1"]]


@pytest.mark.interop
def test_corrupt_header_crc(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("corrupt_header_crc"))
    # CA 8A inverted is 35 75; everything else as it was.
    expected = READ_FRAME[:8] + bytes.fromhex("3575") + READ_FRAME[10:]
    assert out == [expected]
    writes = [(OUT, out[0], 1.0), *later_reads(1)]
    rows = tshark_decode(tmp_path, port, writes, ["frame.number"], "tcp.len>0 && !dnp3")
    assert rows == [["4"]]  # after the three handshake packets: the corrupt frame
    rows = tshark_decode(tmp_path, port, writes, ["dnp3.al.seq"], "dnp3")
    assert rows == [["4"]]  # the good READ after it still reads


@pytest.mark.interop
def test_corrupt_body_crc(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("corrupt_body_crc"))
    # The one data block's CRC 7C CD inverted is 83 32.
    assert out == [READ_FRAME[:16] + bytes.fromhex("8332")]
    rows = tshark_decode(
        tmp_path,
        port,
        [(OUT, out[0], 1.0), *later_reads(1)],
        ["dnp.hdr.CRC.status", "dnp.data_chunk.CRC.status"],
        "dnp3",
    )
    assert rows == [["1", "0"], ["1", "1"]]


@pytest.mark.interop
def test_truncate(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("truncate"))
    # The header and half of the 8 octets after it.
    assert out == [READ_FRAME[:14]]
    writes = [(OUT, out[0], 1.0), *later_reads(1)]
    # tshark holds the cut frame for more octets, takes them from the next READ, and finds
    # the block that results fails its CRC.
    rows = tshark_decode(tmp_path, port, writes, ["frame.number"], "tcp.len>0 && !dnp3")
    assert rows == [["4"]]
    rows = tshark_decode(tmp_path, port, writes, ["dnp.data_chunk.CRC.status"], "dnp3")
    assert rows == [["0"]]


@pytest.mark.interop
def test_overstate_length(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("overstate_length"))
    header = bytes.fromhex("0564ffc400040100")  # LENGTH 0B -> FF
    assert out == [header + crc_le(header) + READ_FRAME[10:]]
    # LENGTH 255 claims 250 data octets and 16 CRCs (292 in all): tshark reads the next
    # frames as its body, so 16 good READs (18 octets each) follow to complete it.
    writes = [(OUT, out[0], 1.0), *later_reads(17)]
    rows = tshark_decode(
        tmp_path,
        port,
        writes,
        ["dnp3.len", "dnp.hdr.CRC.status", "dnp.data_chunk.CRC.status"],
        "dnp3.len==255",
    )
    assert len(rows) == 1
    length, header_crc, block_crcs = rows[0]
    assert (length, header_crc) == ("255", "1")
    assert "0" in block_crcs.split(",")


@pytest.mark.interop
def test_break_transport_sequence(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("break_transport_sequence"))
    # The five application octets as two segments: 45 (FIR, seq 5) C3 01 and then
    # 87 (FIN, seq 7 where 6 was due) 3C 01 06.
    assert out == [from_master(bytes.fromhex("45c301")), from_master(bytes.fromhex("873c0106"))]
    rows = on_wire(tmp_path, port, out, TRANSPORT)
    assert rows == [["1", "0", "5"], ["0", "1", "7"]]


def test_break_transport_sequence_of_a_long_request_skips_from_the_second() -> None:
    # A 300-octet WRITE travels as 249 + 51 octets; the second segment skips a number.
    fragment = bytes((0xC1, 0x02)) + bytes(298)
    good = [
        from_master(bytes((0x41,)) + fragment[:249]),
        from_master(bytes((0x82,)) + fragment[249:]),
    ]
    out = request(on("break_transport_sequence"), good)
    assert out == [good[0], from_master(bytes((0x83,)) + fragment[249:])]


@pytest.mark.interop
def test_orphan_segment(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("orphan_segment"))
    # First a segment with FIN and no FIR, numbered 4 (one before the request's 5),
    # carrying a copy of the request; then the request unchanged.
    assert out == [from_master(bytes((0x84,)) + READ_CLASS0), READ_FRAME]
    rows = on_wire(tmp_path, port, out, TRANSPORT)
    assert rows == [["0", "1", "4"], ["1", "1", "5"]]


@pytest.mark.interop
def test_endless_series(tmp_path: Path, port: int, tshark: None) -> None:
    out = request(on("endless_series", 3))
    filler = bytes(249)
    assert out == [
        from_master(bytes((0x45,)) + READ_CLASS0),  # FIR without FIN, seq 5
        from_master(bytes((0x06,)) + filler),  # neither FIR nor FIN, seq 6, 7, 8
        from_master(bytes((0x07,)) + filler),
        from_master(bytes((0x08,)) + filler),
    ]
    assert len(request(on("endless_series"))) == 65  # the default: 64 after the first
    rows = on_wire(tmp_path, port, out, TRANSPORT)
    assert rows == [["1", "0", "5"], ["0", "0", "6"], ["0", "0", "7"], ["0", "0", "8"]]


# --- confirmations -----------------------------------------------------------------------


@pytest.mark.interop
@pytest.mark.parametrize(
    ("name", "withheld", "kept", "uns"),
    [
        ("withhold_confirmation", "confirm", "unsolicited_confirm", "1"),
        ("withhold_unsolicited_confirmation", "unsolicited_confirm", "confirm", "0"),
    ],
)
def test_withheld_confirmations(
    tmp_path: Path, port: int, tshark: None, name: str, withheld: str, kept: str, uns: str
) -> None:
    frames = {"confirm": CONFIRM_FRAME, "unsolicited_confirm": UNSOLICITED_CONFIRM_FRAME}
    deviations = on(name)
    assert deviations.outgoing(withheld, FunctionCode.CONFIRM, [frames[withheld]], 0.0) == []
    written = deviations.outgoing(kept, FunctionCode.CONFIRM, [frames[kept]], 0.0)
    assert written == [(0.0, frames[kept])]
    # Both responses arrive; only the other kind is confirmed on the wire.
    writes = [(IN, RESPONSE_FRAME, 1.0), (IN, UNSOLICITED_FRAME, 2.0), (OUT, written[0][1], 2.1)]
    rows = tshark_decode(tmp_path, port, writes, ["dnp3.al.func", "dnp3.al.uns"], "dnp3.al.func==0")
    assert rows == [["0", uns]]


@pytest.mark.interop
def test_late_confirmation(tmp_path: Path, port: int, tshark: None) -> None:
    deviations = on("late_confirmation", 12.5)
    out = deviations.outgoing("confirm", None, [CONFIRM_FRAME], 0.0)
    assert out == [(12.5, CONFIRM_FRAME)]
    assert deviations.outgoing("unsolicited_confirm", None, [UNSOLICITED_CONFIRM_FRAME], 0) == [
        (12.5, UNSOLICITED_CONFIRM_FRAME)
    ]
    assert deviations.outgoing("request", None, [READ_FRAME], 0.0) == [(0.0, READ_FRAME)]
    # Written when the session writes it: 12.5 s after the response it confirms.
    delay, octets = out[0]
    rows = tshark_decode(
        tmp_path,
        port,
        [(IN, RESPONSE_FRAME, 1.0), (OUT, octets, 1.0 + delay)],
        ["dnp3.al.func", "frame.time_delta_displayed"],
        "dnp3",
    )
    assert [r[0] for r in rows] == ["129", "0"]
    assert float(rows[1][1]) == pytest.approx(12.5)


@pytest.mark.interop
def test_wrong_confirmation_sequence(tmp_path: Path, port: int, tshark: None) -> None:
    deviations = on("wrong_confirmation_sequence")
    out = deviations.outgoing("confirm", None, [CONFIRM_FRAME], 0.0)
    # C3 (seq 3) becomes C4 (seq 4); the data block's CRC is made good again.
    assert out == [(0.0, from_master(bytes.fromhex("c6c400")))]
    unsolicited = deviations.outgoing("unsolicited_confirm", None, [UNSOLICITED_CONFIRM_FRAME], 0)
    assert unsolicited == [(0.0, from_master(bytes.fromhex("c7d300")))]
    # Sequence 15 wraps to 0.
    wrapped = deviations.outgoing("confirm", None, [from_master(bytes.fromhex("c6cf00"))], 0.0)
    assert wrapped == [(0.0, from_master(bytes.fromhex("c6c000")))]
    rows = tshark_decode(
        tmp_path,
        port,
        [(IN, RESPONSE_FRAME, 1.0), (OUT, out[0][1], 1.1)],
        ["dnp3.al.func", "dnp3.al.seq", "dnp.data_chunk.CRC.status"],
        "dnp3",
    )
    assert rows == [["129", "3", "1"], ["0", "4", "1"]]


def test_request_deviations_leave_confirmations_alone_and_the_reverse() -> None:
    requests_only = Deviations()
    requests_only.set(
        {name: True for name in DEVIATIONS if "confirm" not in name and name != "silence"}
    )
    assert requests_only.outgoing("confirm", None, [CONFIRM_FRAME], 0.0) == [(0.0, CONFIRM_FRAME)]
    assert requests_only.outgoing("link", None, [READ_FRAME], 0.0) == [(0.0, READ_FRAME)]
    confirms_only = Deviations()
    confirms_only.set({name: True for name in DEVIATIONS if "confirm" in name})
    assert confirms_only.outgoing("request", None, [READ_FRAME], 0.0) == [(0.0, READ_FRAME)]


def test_combined_in_the_documented_order() -> None:
    deviations = Deviations()
    deviations.set({"orphan_segment": True, "repeat_request": True, "corrupt_header_crc": True})
    out = request(deviations)
    corrupt = READ_FRAME[:8] + bytes.fromhex("3575") + READ_FRAME[10:]
    orphan = from_master(bytes((0x84,)) + READ_CLASS0)
    # The orphan is built from the request before corruption; the lot is then doubled.
    assert out == [orphan, corrupt, orphan, corrupt]


@given(
    frames=st.lists(
        st.one_of(
            st.binary(max_size=300),
            st.builds(
                lambda data, source: from_master(data, source=source),
                st.binary(min_size=1, max_size=250),
                st.integers(0, 0xFFEF),
            ),
        ),
        max_size=4,
    ),
    kind=st.sampled_from(["request", "confirm", "unsolicited_confirm", "link"]),
    names=st.sets(st.sampled_from(sorted(DEVIATIONS))),
)
@settings(max_examples=300, deadline=None)
def test_the_hook_never_raises_whatever_it_is_handed(
    frames: list[bytes], kind: str, names: set[str]
) -> None:
    deviations = Deviations()
    deviations.set(dict.fromkeys(names, True))
    out = deviations.outgoing(kind, None, frames, 0.0)
    assert all(delay >= 0 and isinstance(octets, bytes) for delay, octets in out)


# --- requests that command ---------------------------------------------------------------

# Requests that command (issue 9), by hand: application C3 (FIR|FIN, seq 3), the function
# code, then the objects; one transport segment C5 (FIR|FIN, seq 5).
CROB_3 = "0c0117010303016400000064000000" + "00"  # g12v1 q17 count 1, point 3 LATCH_ON
COMMANDING_FRAGMENTS = {
    "SELECT": "c303" + CROB_3,
    "OPERATE": "c304" + CROB_3,
    "DIRECT_OPERATE": "c305" + CROB_3,
    "DIRECT_OPERATE_NR": "c306" + CROB_3,
    "WRITE g80v1": "c302" + "500100070700",  # clear the restart indication
    "WRITE g50v1": "c302" + "320107" + "01" + "00a0724e8501",  # one time, qualifier 07
    "COLD_RESTART": "c30d",
    "WARM_RESTART": "c30e",
    "IMMED_FREEZE": "c307" + "140006",
    "IMMED_FREEZE_NR": "c308" + "140006",
    "RECORD_CURRENT_TIME": "c318",
}
# A WRITE of 300 octets in two segments: 41 (FIR, seq 1) and 82 (FIN, seq 2).
LONG_WRITE = bytes((0xC1, 0x02)) + bytes(298)
LONG_WRITE_FRAMES = [
    from_master(bytes((0x41,)) + LONG_WRITE[:249]),
    from_master(bytes((0x82,)) + LONG_WRITE[249:]),
]
REQUEST_DEVIATIONS = sorted(name for name in DEVIATIONS if "confirm" not in name)


def copies(out: list[bytes], fragment: bytes) -> int:
    """How many of the frames written hold the fragment's first octets (up to 15: the
    application header and the start of the objects) where a first segment holds them,
    after the link header and the transport octet, whatever their CRCs say."""
    head = fragment[:15]
    return sum(raw[11 : 11 + len(head)] == head for raw in out)


def test_the_hand_built_commands_are_what_the_gate_calls_commanding() -> None:
    for name, text in COMMANDING_FRAGMENTS.items():
        function = FunctionCode(bytes.fromhex(text)[1])
        assert function.name == name.split()[0]
        assert gate.commands(function)
    assert not gate.commands(FunctionCode.READ)


@pytest.mark.parametrize("name", sorted(COMMANDING_FRAGMENTS))
def test_repeat_request_sends_a_command_once(name: str) -> None:
    fragment = bytes.fromhex(COMMANDING_FRAGMENTS[name])
    frame = from_master(bytes((0xC5,)) + fragment)
    function = FunctionCode(fragment[1])
    assert request(on("repeat_request"), [frame], function) == [frame]
    assert request(on("repeat_request"), LONG_WRITE_FRAMES, FunctionCode.WRITE) == (
        LONG_WRITE_FRAMES
    )


def test_a_command_named_otherwise_is_still_sent_once() -> None:
    # The fragment says WRITE: named READ, or not named, it is not doubled.
    frame = from_master(bytes((0xC5,)) + bytes.fromhex(COMMANDING_FRAGMENTS["WRITE g80v1"]))
    assert request(on("repeat_request"), [frame], FunctionCode.READ) == [frame]
    assert request(on("repeat_request"), [frame], None) == [frame]
    # A read named by the session and carried by the fragment is still doubled.
    assert request(on("repeat_request"), [READ_FRAME], None) == [READ_FRAME, READ_FRAME]


def test_repeat_request_left_out_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    deviations = Deviations("feeder-7")
    deviations.set({"repeat_request": True})
    frame = from_master(bytes((0xC5,)) + bytes.fromhex(COMMANDING_FRAGMENTS["COLD_RESTART"]))
    with caplog.at_level("INFO", logger="gridwire.master.deviations"):
        deviations.outgoing("request", FunctionCode.COLD_RESTART, [frame], 0.0)
    assert "feeder-7: repeat_request left out: COLD_RESTART commands" in caplog.text


@pytest.mark.interop
def test_orphan_segment_of_a_command_holds_no_copy_of_it(
    tmp_path: Path, port: int, tshark: None
) -> None:
    fragment = bytes.fromhex(COMMANDING_FRAGMENTS["DIRECT_OPERATE_NR"])
    frame = from_master(bytes((0xC5,)) + fragment)
    out = request(on("orphan_segment"), [frame], FunctionCode.DIRECT_OPERATE_NR)
    # The orphan (FIN, seq 4) carries as many zeros as the command has octets; then the
    # command unchanged.
    assert out == [from_master(bytes((0x84,)) + bytes(len(fragment))), frame]
    assert copies(out, fragment) == 1
    rows = on_wire(tmp_path, port, out, TRANSPORT)
    assert rows == [["0", "1", "4"], ["1", "1", "5"]]


@given(
    name=st.sampled_from(sorted(COMMANDING_FRAGMENTS)),
    names=st.sets(st.sampled_from(REQUEST_DEVIATIONS), min_size=1),
    named=st.booleans(),
    long=st.booleans(),
)
@settings(max_examples=400, deadline=None)
def test_no_deviation_writes_a_command_twice(
    name: str, names: set[str], named: bool, long: bool
) -> None:
    deviations = Deviations()
    deviations.set(dict.fromkeys(names, True))
    if long:
        fragment, frames = LONG_WRITE, LONG_WRITE_FRAMES
    else:
        fragment = bytes.fromhex(COMMANDING_FRAGMENTS[name])
        frames = [from_master(bytes((0xC5,)) + fragment)]
    function = FunctionCode(fragment[1]) if named else None
    out = [octets for _, octets in deviations.outgoing("request", function, frames, 0.0)]
    assert copies(out, fragment) <= 1
