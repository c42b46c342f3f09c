"""FT3 frames built and parsed, against octets derived by hand (IEEE 1815-2012 clause 9).

Every literal below is laid out octet by octet in its comment; the CRC octets come from
tests/dnp3/reference_crc.py (an independent bitwise CRC), and the tests recompute them with it.
"""

from __future__ import annotations

import pytest

from gridwire.dnp3.errors import DecodeError, EncodeError
from gridwire.dnp3.link import (
    MAX_FRAME,
    LinkFrame,
    PrimaryFunction,
    SecondaryFunction,
    ack,
    encode_frame,
    frame_size,
    link_status_reply,
    nack,
    not_supported,
    parse_frame,
    reply_to,
    request_link_status,
    reset_link_states,
    test_link_states,
    user_data,
)
from tests.dnp3.reference_crc import crc_le, reference_frame

READ_CLASS_0 = bytes.fromhex("C0 C0 01 3C 01 06")  # transport C0, application C0 01 3C 01 06


# (frame built by gridwire, the literal octets, what they mean)
LITERALS = [
    (
        reset_link_states(1, 1024, from_master=True),
        # 05 64 start; 05 LENGTH (no data); C0 = DIR 0x80 | PRM 0x40 | RESET_LINK_STATES 0;
        # 01 00 destination 1; 00 04 source 1024; E9 21 header CRC (the well-known frame).
        "05 64 05 C0 01 00 00 04 E9 21",
    ),
    (
        test_link_states(1024, 1, from_master=True, fcb=True),
        # F2 = DIR | PRM | FCB 0x20 | FCV 0x10 | TEST_LINK_STATES 2; to 1024 from 1.
        "05 64 05 F2 00 04 01 00 14 03",
    ),
    (
        request_link_status(1024, 1, from_master=True),
        # C9 = DIR | PRM | REQUEST_LINK_STATUS 9.
        "05 64 05 C9 00 04 01 00 98 81",
    ),
    (
        user_data(1024, 1, READ_CLASS_0, from_master=True, confirmed=True),
        # 0B = 5 + 6 octets of data; D3 = DIR | PRM | FCV | CONFIRMED_USER_DATA 3 (FCB 0);
        # then the 6 data octets in one short block and its CRC FF 50.
        "05 64 0B D3 00 04 01 00 4A C9 C0 C0 01 3C 01 06 FF 50",
    ),
    (
        user_data(1024, 1, READ_CLASS_0, from_master=True),
        # C4 = DIR | PRM | UNCONFIRMED_USER_DATA 4 (FCV 0, FCB 0).
        "05 64 0B C4 00 04 01 00 CA 8A C0 C0 01 3C 01 06 FF 50",
    ),
    (
        ack(1, 1024, from_master=False),
        # 00 = DIR 0 (from the outstation) | PRM 0 | ACK 0; to 1 from 1024.
        "05 64 05 00 01 00 00 04 27 70",
    ),
    (
        nack(1, 1024, from_master=False),
        # 01 = NACK 1.
        "05 64 05 01 01 00 00 04 21 53",
    ),
    (
        link_status_reply(1, 1024, from_master=False),
        # 0B = LINK_STATUS 11.
        "05 64 05 0B 01 00 00 04 64 40",
    ),
    (
        link_status_reply(1, 1024, from_master=False, dfc=True),
        # 1B = DFC 0x10 | LINK_STATUS 11.
        "05 64 05 1B 01 00 00 04 F6 EA",
    ),
    (
        not_supported(1, 1024, from_master=False),
        # 0F = NOT_SUPPORTED 15.
        "05 64 05 0F 01 00 00 04 7C CC",
    ),
]


@pytest.mark.parametrize(("built", "literal"), LITERALS)
def test_frame_literals(built: bytes, literal: str) -> None:
    expected = bytes.fromhex(literal)
    assert built == expected
    # The CRCs in the literal are the independent CRC's (these frames have one block at most).
    data = expected[10:-2] if expected[2] > 5 else b""
    assert expected == reference_frame(expected[:8], data)


def test_largest_frame_literal() -> None:
    data = bytes(range(250))
    frame = user_data(1024, 1, data, from_master=True)
    # Header: LENGTH FF = 5 + 250; C4 unconfirmed user data from the master; CRC 19 F1.
    # Then 15 blocks of 16 octets and one of 10 (15 * 16 + 10 = 250), each with its CRC:
    # 10 + 250 + 16 * 2 = 292 octets, the largest frame there is.
    block_crcs = [
        "EC10", "2703", "7A37", "B124", "C05F", "0B4C", "5678", "9D6B",
        "B48E", "7F9D", "22A9", "E9BA", "98C1", "53D2", "0EE6", "DCA0",
    ]  # fmt: skip
    expected = bytes.fromhex("05 64 FF C4 00 04 01 00 19 F1")
    for number, crc in enumerate(block_crcs):
        block = data[number * 16 : number * 16 + 16]
        assert crc_le(block) == bytes.fromhex(crc)
        expected += block + bytes.fromhex(crc)
    assert len(frame) == MAX_FRAME == 292
    assert frame == expected
    parsed = parse_frame(frame)
    assert parsed.data == data
    assert parsed.raw == frame


def test_block_boundaries() -> None:
    # 16 octets fill exactly one block; 17 need a second block of one octet.
    for size, blocks in ((1, 1), (15, 1), (16, 1), (17, 2), (32, 2), (33, 3), (250, 16)):
        data = bytes(range(size))
        frame = user_data(7, 8, data, from_master=False)
        assert len(frame) == 10 + size + 2 * blocks == frame_size(5 + size)
        assert frame == reference_frame(
            bytes.fromhex("0564") + bytes([5 + size, 0x44, 7, 0, 8, 0]), data
        )


def test_parse_fields() -> None:
    frame = parse_frame(bytes.fromhex("05 64 05 F2 00 04 01 00 14 03"))
    assert frame == LinkFrame(
        dir=True,
        prm=True,
        fcb=True,
        fcv=True,
        function=PrimaryFunction.TEST_LINK_STATES,
        destination=1024,
        source=1,
        data=b"",
        raw=bytes.fromhex("05 64 05 F2 00 04 01 00 14 03"),
    )
    assert frame.control == 0xF2
    assert frame.function_name == "TEST_LINK_STATES"
    status = parse_frame(bytes.fromhex("05 64 05 1B 01 00 00 04 F6 EA"))
    assert (status.dir, status.prm, status.dfc) == (False, False, True)
    assert status.function is SecondaryFunction.LINK_STATUS
    assert status.function_name == "LINK_STATUS"


def test_undefined_function_code_is_kept() -> None:
    # Primary function 1 (reset of user process) is obsolete: no name, code kept.
    header = bytes.fromhex("05 64 05 C1 01 00 00 04")
    frame = parse_frame(header + crc_le(header))
    assert frame.function == 1
    assert frame.function_name == "FUNCTION_1"
    assert not isinstance(frame.function, PrimaryFunction | SecondaryFunction)


def test_encode_frame_any_bits() -> None:
    # A secondary frame from the master with DFC, and user data on a reset: allowed.
    frame = encode_frame(0, 3, 4, b"\x01", from_master=True, primary=False, fcv=True)
    assert frame == reference_frame(bytes.fromhex("05 64 06 90 03 00 04 00"), b"\x01")
    assert encode_frame(15, 0xFFFF, 0, from_master=False, fcb=True)[3] == 0x40 | 0x20 | 15


@pytest.mark.parametrize(
    "call",
    [
        lambda: user_data(1, 2, bytes(251), from_master=True),
        lambda: user_data(1, 2, b"", from_master=True),
        lambda: user_data(-1, 2, b"x", from_master=True),
        lambda: user_data(1, 0x10000, b"x", from_master=True),
        lambda: encode_frame(16, 1, 2, from_master=True),
        lambda: encode_frame(-1, 1, 2, from_master=True),
    ],
)
def test_encode_errors(call: object) -> None:
    with pytest.raises(EncodeError):
        call()  # type: ignore[operator]


def test_parse_errors() -> None:
    good = bytes.fromhex("05 64 0B C4 00 04 01 00 CA 8A C0 C0 01 3C 01 06 FF 50")
    with pytest.raises(DecodeError, match="at least 10"):
        parse_frame(good[:9])
    with pytest.raises(DecodeError, match="starts 05 64"):
        parse_frame(b"\x06" + good[1:])
    with pytest.raises(DecodeError, match="bad header CRC"):
        parse_frame(good[:8] + b"\x00\x00" + good[10:])
    with pytest.raises(DecodeError, match="bad data CRC at block 1"):
        parse_frame(good[:-1] + b"\x00")
    with pytest.raises(DecodeError, match="needs 18 octets"):
        parse_frame(good[:-1])
    with pytest.raises(DecodeError, match="makes 18 octets"):
        parse_frame(good + b"\x00")
    short = bytes.fromhex("05 64 04 C4 00 04 01 00")  # LENGTH 4: impossible, CRC good
    with pytest.raises(DecodeError, match="bad length 4"):
        parse_frame(short + crc_le(short))


def test_reply_to() -> None:
    def reply(frame: bytes) -> bytes | None:
        return reply_to(parse_frame(frame))

    # The outstation 1024 answers the master 1, DIR 0.
    assert reply(request_link_status(1024, 1, from_master=True)) == bytes.fromhex(
        "05 64 05 0B 01 00 00 04 64 40"
    )
    acked = bytes.fromhex("05 64 05 00 01 00 00 04 27 70")
    assert reply(reset_link_states(1024, 1, from_master=True)) == acked
    assert reply(test_link_states(1024, 1, from_master=True, fcb=False)) == acked
    assert reply(user_data(1024, 1, b"\xc0", from_master=True, confirmed=True)) == acked
    assert reply(user_data(1024, 1, b"\xc0", from_master=True)) is None
    assert reply(bytes.fromhex("05 64 05 00 01 00 00 04 27 70")) is None  # an ACK
    header = bytes.fromhex("05 64 05 C1 00 04 01 00")  # primary function 1: not defined
    assert reply(header + crc_le(header)) == bytes.fromhex("05 64 05 0F 01 00 00 04 7C CC")
    # A master answering an outstation's primary frame sets DIR.
    assert reply(request_link_status(1, 1024, from_master=False))[3] == 0x80 | 11  # type: ignore[index]
