"""The link layer's own services, addressing, broadcasts, and requests that are not taken."""

from __future__ import annotations

from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.link import (
    LinkFrame,
    LinkReader,
    SecondaryFunction,
    encode_frame,
    request_link_status,
    reset_link_states,
    user_data,
)
from tests.outstation.wire import MASTER, OUTSTATION, Wire, hexes


def _link_replies(wire: Wire, frame: bytes) -> list[tuple[int, int, int, bool]]:
    reader = LinkReader()
    out = wire.session.receive(frame, 1.0)
    return [
        (f.function, f.destination, f.source, f.prm)
        for chunk in out
        for f in reader.feed(chunk)
        if isinstance(f, LinkFrame)
    ]


def test_link_status_and_reset_are_answered(wire: Wire) -> None:
    # REQUEST_LINK_STATUS from the master (05 64 05 C9 00 04 01 00 + CRC) draws LINK_STATUS
    # (secondary, function 11) to the master; RESET_LINK_STATES draws ACK (function 0).
    status = request_link_status(OUTSTATION, MASTER, from_master=True)
    assert status[:8] == bytes.fromhex("05 64 05 C9 00 04 01 00")
    assert _link_replies(wire, status) == [
        (SecondaryFunction.LINK_STATUS, MASTER, OUTSTATION, False)
    ]
    reset = reset_link_states(OUTSTATION, MASTER, from_master=True)
    assert _link_replies(wire, reset) == [(SecondaryFunction.ACK, MASTER, OUTSTATION, False)]


def test_confirmed_user_data_is_acknowledged_and_carried_out(wire: Wire) -> None:
    frame = user_data(
        OUTSTATION, MASTER, bytes.fromhex("C0 C0 01 3C 01 06"), from_master=True, confirmed=True
    )
    replies = _link_replies(wire, frame)
    assert replies[0] == (SecondaryFunction.ACK, MASTER, OUTSTATION, False)
    assert len(replies) == 2 and replies[1][3]  # then the response, a primary frame


def test_frames_not_for_us_are_ignored(wire: Wire) -> None:
    assert wire.send("C0 01 3C 01 06", destination=1025) == []
    # From another master address: ignored as well.
    other = user_data(OUTSTATION, 7, bytes.fromhex("C0 C0 01 3C 01 06"), from_master=True)
    assert wire.session.receive(other, 1.0) == []
    # A frame with DIR clear (sent by an outstation) is not a request.
    wrong_way = user_data(OUTSTATION, MASTER, bytes.fromhex("C0 C0 01 3C 01 06"), from_master=False)
    assert wire.session.receive(wrong_way, 1.0) == []
    # Garbage and a frame with a bad CRC: nothing.
    assert (
        wire.session.receive(b"\x00\x01\x02garbage\x05\x64\x05\xc9\x00\x04\x01\x00\x00\x00", 1.0)
        == []
    )
    assert wire.session.channel.ignored >= 4
    assert len(wire.send("C1 01 3C 01 06")) == 1  # and the session still answers


def test_a_request_cut_short_does_not_cost_the_next_one(wire: Wire) -> None:
    # A READ of class 0 whose frame is cut after its header and 3 of its 8 data octets (the
    # rest never sent), then a whole READ in the same write: the second one is answered.
    cut = user_data(OUTSTATION, MASTER, bytes.fromhex("C0 C0 01 3C 01 06"), from_master=True)
    whole = user_data(OUTSTATION, MASTER, bytes.fromhex("C1 C1 01 3C 01 06"), from_master=True)
    answers = wire.fragments(wire.session.receive(cut[:13] + whole, 1.0))
    assert len(answers) == 1 and answers[0][:2] == bytes.fromhex("C1 81")  # seq 1, RESPONSE


def test_broadcast_is_carried_out_silently_and_reported_once(wire: Wire) -> None:
    # WRITE g80v1 7..7 = 0 (clear DEVICE_RESTART) to 0xFFFF: no link or application reply.
    assert wire.send("C0 02 50 01 00 07 07 00", destination=0xFFFF) == []
    answer = wire.ask("C1 01 3C 01 06")
    # IIN1.0 (BROADCAST) reported, and the write took effect: 0x11 = NEED_TIME | BROADCAST.
    assert answer.iin & IIN.BROADCAST and not answer.iin & IIN.DEVICE_RESTART
    assert not answer.control.con
    assert not wire.ask("C2 01 3C 01 06").iin & IIN.BROADCAST


def test_broadcast_that_asks_for_confirmation(wire: Wire) -> None:
    # To 0xFFFE ("shall confirm"): the response reporting it asks for a confirm (CON), and the
    # bit stays until the master confirms.
    wire.send("C0 02 50 01 00 07 07 00", destination=0xFFFE)
    # READ class 1 (nothing waits): E1 = FIR|FIN|CON, sequence 1; IIN1 0x11.
    assert hexes(wire.send("C1 01 3C 02 06")) == ["E1 81 11 00"]
    assert hexes(wire.send("C2 01 3C 02 06")) == ["E2 81 11 00"]  # not confirmed: still set
    assert wire.send("C2 00") == []
    assert hexes(wire.send("C3 01 3C 02 06")) == ["C3 81 10 00"]


def test_requests_that_are_not_single_fragments_or_carry_uns_are_ignored(wire: Wire) -> None:
    assert wire.send("80 01 3C 01 06") == []  # FIR without FIN
    assert wire.send("40 01 3C 01 06") == []  # FIN without FIR
    assert wire.send("D0 01 3C 01 06") == []  # UNS set on a request
    assert wire.send("C0 81 00 00") == []  # a response's function code
    assert wire.send("C0") == []  # too short


def test_a_frame_with_a_reserved_link_function_is_refused_at_the_link_layer(wire: Wire) -> None:
    frame = encode_frame(13, OUTSTATION, MASTER, from_master=True)
    assert _link_replies(wire, frame) == [
        (SecondaryFunction.NOT_SUPPORTED, MASTER, OUTSTATION, False)
    ]
