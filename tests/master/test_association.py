"""The master's association, sans-IO, against literal octets.

Every frame below was laid out by hand from IEEE 1815-2012 (clause 9 link header, clause 8
transport header, clause 4 application header) and its CRCs computed with the tests' own
bitwise CRC-16/DNP (tests/dnp3/reference_crc.py), which shares nothing with the code under
test; ``test_literal_crcs`` re-checks each literal here against that CRC.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.link import Dropped, LinkFrame
from gridwire.master.association import Association
from gridwire.master.scans import integrity_body
from tests.dnp3.reference_crc import bitwise_crc

# Master 1 -> outstation 1024, UNCONFIRMED_USER_DATA (CONTROL C4 = DIR|PRM|4), LENGTH 0x14 =
# 5 + 15 user data octets: transport C0 (FIR|FIN, seq 0), application C0 (FIR|FIN, seq 0)
# 01 (READ) then g60v2, g60v3, g60v4, g60v1 each with qualifier 06: the integrity poll.
INTEGRITY = bytes.fromhex(
    "05 64 14 c4 00 04 01 00 e9 b6 c0 c0 01 3c 02 06 3c 03 06 3c 04 06 3c 01 06 8a 51"
)
# Outstation 1024 -> master 1, UNCONFIRMED_USER_DATA (CONTROL 44 = PRM|4, DIR 0), LENGTH 0A:
# transport C0, application C0 (FIR|FIN seq 0) 81 (RESPONSE) IIN 00 00: a null response.
NULL_RESPONSE = bytes.fromhex("05 64 0a 44 01 00 00 04 67 88 c0 c0 81 00 00 9c e8")
# Same header; application F0 (FIR|FIN|CON|UNS seq 0) 82 (UNSOLICITED_RESPONSE) IIN1 80
# (DEVICE_RESTART): the null unsolicited response an outstation sends when it starts.
NULL_UNSOLICITED = bytes.fromhex("05 64 0a 44 01 00 00 04 67 88 c0 f0 82 80 00 6b 7d")
# Master -> outstation, LENGTH 08: transport C0, application D0 (FIR|FIN|UNS seq 0) 00
# (CONFIRM): the confirmation of that unsolicited response.
UNSOLICITED_CONFIRM = bytes.fromhex("05 64 08 c4 00 04 01 00 9a 19 c0 d0 00 1b 49")
# Master -> outstation, LENGTH 08: transport C9 (FIR|FIN seq 9), application C5 (FIR|FIN seq
# 5) 00 (CONFIRM): the confirmation of response fragment 5 sent as the tenth segment.
CONFIRM_5_AT_9 = bytes.fromhex("05 64 08 c4 00 04 01 00 9a 19 c9 c5 00 cf de")
# Outstation -> master REQUEST_LINK_STATUS (CONTROL 49 = PRM|9), no data.
REQUEST_LINK_STATUS = bytes.fromhex("05 64 05 49 01 00 00 04 d2 36")
# Master -> outstation LINK_STATUS (CONTROL 8B = DIR|11, PRM 0), no data.
LINK_STATUS = bytes.fromhex("05 64 05 8b 00 04 01 00 2e f7")


def _frame(control: int, destination: int, source: int, data: bytes) -> bytes:
    """An FT3 frame laid out by hand, CRCs from the reference CRC."""
    header = bytes((0x05, 0x64, 5 + len(data), control))
    header += destination.to_bytes(2, "little") + source.to_bytes(2, "little")
    out = header + bitwise_crc(header).to_bytes(2, "little")
    for at in range(0, len(data), 16):
        block = data[at : at + 16]
        out += block + bitwise_crc(block).to_bytes(2, "little")
    return out


def test_literal_crcs() -> None:
    literals = (INTEGRITY, NULL_RESPONSE, NULL_UNSOLICITED, UNSOLICITED_CONFIRM, CONFIRM_5_AT_9)
    for literal in literals:
        header = literal[:8]
        assert literal[8:10] == bitwise_crc(header).to_bytes(2, "little")
        data = literal[10:-2]
        assert literal[-2:] == bitwise_crc(data).to_bytes(2, "little")
    for literal in (REQUEST_LINK_STATUS, LINK_STATUS):
        assert literal[8:10] == bitwise_crc(literal[:8]).to_bytes(2, "little")


def test_integrity_request_octets() -> None:
    assoc = Association()
    out = assoc.request(FunctionCode.READ, integrity_body())
    assert out.seq == 0
    assert out.fragment == bytes.fromhex("c0 01 3c 02 06 3c 03 06 3c 04 06 3c 01 06")
    assert out.frames == [INTEGRITY]
    assert assoc.next_sequence == 1


def test_sequences_move_on_and_a_repeat_keeps_its_number() -> None:
    assoc = Association()
    first = assoc.request(FunctionCode.READ, b"\x3c\x01\x06")
    second = assoc.request(FunctionCode.READ, b"\x3c\x01\x06")
    again = assoc.request(FunctionCode.READ, b"\x3c\x01\x06", seq=second.seq)
    assert (first.seq, second.seq, again.seq) == (0, 1, 1)
    assert assoc.next_sequence == 2
    # Application control C1 (FIR|FIN seq 1) both times; transport sequence 1 then 2.
    assert second.frames[0][10:13] == bytes((0xC1, 0xC1, 0x01))
    assert again.frames[0][10:13] == bytes((0xC2, 0xC1, 0x01))
    for _ in range(15):
        assoc.request(FunctionCode.READ)
    assert assoc.next_sequence == 1  # modulo 16


def test_null_response_is_a_final_fragment() -> None:
    received = Association().receive(NULL_RESPONSE)
    assert len(received.frames) == 1 and isinstance(received.frames[0], LinkFrame)
    [fragment] = received.fragments
    assert (fragment.seq, fragment.fir, fragment.fin, fragment.con) == (0, True, True, False)
    assert not fragment.unsolicited
    assert fragment.iin == IIN(0)
    assert fragment.raw == bytes.fromhex("c0 81 00 00")
    assert received.replies == [] and received.discarded == []


def test_unsolicited_and_its_confirmation() -> None:
    assoc = Association()
    [fragment] = assoc.receive(NULL_UNSOLICITED).fragments
    assert fragment.unsolicited and fragment.con
    assert fragment.iin.names == ["DEVICE_RESTART"]
    out = assoc.confirm(fragment.seq, unsolicited=True)
    assert out.frames == [UNSOLICITED_CONFIRM]


def test_confirm_frame_octets() -> None:
    assoc = Association()
    for _ in range(9):  # nine segments sent before: the next transport sequence is 9
        assoc.confirm(0, unsolicited=False)
    out = assoc.confirm(5, unsolicited=False)
    assert out.fragment == bytes.fromhex("c5 00")
    assert out.frames == [CONFIRM_5_AT_9]


def test_every_confirm_frame_is_laid_out_as_the_standard_says() -> None:
    # Every application sequence, solicited (C0|seq) and unsolicited (D0|seq), at every
    # transport sequence (64 confirms of each go round it once), between other addresses:
    # the frame as laid out by hand with the reference CRC, and the transport sequence moved
    # on as a request's frames move it.
    assoc = Association(outstation=0xABCD, master=0x0102)
    sent = 0
    for unsolicited in (False, True):
        for seq in range(16):
            control = 0xC0 | (0x10 if unsolicited else 0) | seq
            for _ in range(64):
                out = assoc.confirm(seq, unsolicited=unsolicited)
                data = bytes((0xC0 | sent % 64, control, 0x00))
                assert out.frames == [_frame(0xC4, 0xABCD, 0x0102, data)], (sent, control)
                sent += 1
    request = assoc.request(FunctionCode.READ, b"")
    assert request.frames == [_frame(0xC4, 0xABCD, 0x0102, bytes((0xC0, 0xC0, 0x01)))]


def test_octets_one_at_a_time() -> None:
    assoc = Association()
    fragments = []
    for octet in NULL_UNSOLICITED + NULL_RESPONSE:
        fragments += assoc.receive(bytes((octet,))).fragments
    assert [f.function for f in fragments] == [0x82, 0x81]


def test_link_status_request_is_answered() -> None:
    received = Association().receive(REQUEST_LINK_STATUS)
    assert received.replies == [LINK_STATUS]
    assert received.fragments == []


def test_frames_of_other_stations_are_ignored() -> None:
    # The same null response, but from outstation 7 (source 07 00), and one to master 2.
    other_source = _frame(0x44, 1, 7, bytes.fromhex("c0 c0 81 00 00"))
    other_master = _frame(0x44, 2, 1024, bytes.fromhex("c0 c0 81 00 00"))
    received = Association().receive(other_source + other_master)
    assert received.ignored == 2
    assert received.fragments == []
    assert len(received.frames) == 2


def test_multi_segment_fragment_is_reassembled() -> None:
    # A response of 300 octets: C0 81 00 00 then g30v1 (32-bit analog with flags),
    # start-stop 0..58 (qualifier 00), 59 objects of 5 octets = 295 + 4 + 5 header = 304.
    objects = b"".join(bytes((0x01,)) + i.to_bytes(4, "little") for i in range(59))
    app = bytes.fromhex("c0 81 00 00 1e 01 00 00 3a") + objects
    # Transport: first segment 0x40|seq 0 with 249 octets, then 0x80|seq 1 with the rest.
    seg1 = bytes((0x40,)) + app[:249]
    seg2 = bytes((0x81,)) + app[249:]
    wire = _frame(0x44, 1, 1024, seg1) + _frame(0x44, 1, 1024, seg2)
    assoc = Association()
    first = assoc.receive(wire[:100])
    assert first.fragments == []
    rest = assoc.receive(wire[100:])
    [fragment] = rest.fragments
    assert fragment.raw == app


def test_garbage_and_bad_fragments_are_reported() -> None:
    # Garbage, then a frame whose transport segment has no FIR (0x80|seq 3: nothing in
    # progress), then a "response" with READ's function code, then one too short.
    orphan = _frame(0x44, 1, 1024, bytes((0x83,)) + bytes.fromhex("c0 81 00 00"))
    wrong_function = _frame(0x44, 1, 1024, bytes.fromhex("c0 c0 01 00 00"))
    short = _frame(0x44, 1, 1024, bytes.fromhex("c0 c0 81"))
    received = Association().receive(b"\x01\x02\x03" + orphan + wrong_function + short)
    assert isinstance(received.frames[0], Dropped)
    assert received.fragments == []
    assert len(received.discarded) == 3
    assert "no fragment in progress" in received.discarded[0]
    assert "not a response" in received.discarded[1]
    assert "too short" in received.discarded[2]


def test_addresses_are_checked() -> None:
    from gridwire.dnp3.errors import EncodeError

    with pytest.raises(EncodeError):
        Association(outstation=70000)


@given(st.lists(st.binary(max_size=400), max_size=12))
@settings(max_examples=300, deadline=None)
def test_arbitrary_octets_never_raise(chunks: list[bytes]) -> None:
    # Garbage spliced between good frames: the association never raises, and every good
    # response fragment that arrives whole after the garbage is still found.
    assoc = Association()
    for chunk in chunks:
        received = assoc.receive(chunk)
        for fragment in received.fragments:
            assert len(fragment.raw) >= 4
    # A good frame after garbage that ends in the middle of a frame header: 05 64 alone,
    # then the null response, are read once the reader resynchronises.
    found = assoc.receive(b"\x05\x64" + NULL_RESPONSE + NULL_RESPONSE).fragments
    assert found and found[-1].raw == bytes.fromhex("c0 81 00 00")
