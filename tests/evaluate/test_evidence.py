"""The evidence of a failed check: frames decoded layer by layer. The class 0 read below is
written out by hand (IEEE 1815-2012: READ 0x01, g60v1 qualifier 0x06); the frames around it
come from the link and transport encoders."""

from __future__ import annotations

from gridwire.dnp3.link import user_data
from gridwire.dnp3.transport import segment
from gridwire.evaluate.evidence import decode
from gridwire.master.records import FrameRecord

# A request fragment: application control C3 (FIR FIN, seq 3), READ, g60v1 all (qualifier 06).
READ_CLASS_0 = bytes.fromhex("c3013c0106")


def record(
    frame_id: int, octets: bytes, direction: str = "sent", dropped: str | None = None
) -> FrameRecord:
    return FrameRecord(
        frame_id, 1_700_000_000_000.0, direction, octets.hex(), "summary", dropped=dropped
    )  # type: ignore[arg-type]


def test_a_request_and_a_two_segment_response_layer_by_layer() -> None:
    [tpdu], _ = segment(READ_CLASS_0, 5)
    request = user_data(1024, 1, tpdu, from_master=True)
    # A response of 300 octets (RESPONSE, IIN 0, then g30v1 start-stop 0..58: 59 x 5 octets).
    body = bytes.fromhex("1e01" + "00" + "003a") + bytes(59 * 5)
    fragment = bytes.fromhex("e3810000") + body
    tpdus, _ = segment(fragment, 9)
    assert len(tpdus) == 2
    frames = [record(10, request)]
    frames += [
        record(11 + n, user_data(1, 1024, t, from_master=False), "received")
        for n, t in enumerate(tpdus)
    ]
    decoded = decode(frames, lambda frame_id: frame_id + 3)
    sent, first, second = decoded
    assert sent.link == "PRI UNCONFIRMED_USER_DATA 1->1024 LEN=11 DIR=1 FCB=0"
    assert sent.transport == "FIR=1 FIN=1 SEQ=5"
    assert sent.application == "READ FIR FIN SEQ=3; headers g60v1 q0x06"
    assert sent.packet == 13 and sent.time == "2023-11-14T22:13:20.000Z"
    assert first.transport == "FIR=1 FIN=0 SEQ=9" and second.transport == "FIR=0 FIN=1 SEQ=10"
    assert first.application == "RESPONSE FIR FIN CON SEQ=3 IIN none; headers g30v1 q0x00"
    assert len(first.objects) == 59 and first.objects[0] == "g30v1 ai 0 = 0 [no flags set]"
    assert second.application is None and second.problem is None


def test_what_is_not_a_frame_says_why() -> None:
    [tpdu], _ = segment(READ_CLASS_0, 5)
    good = user_data(1024, 1, tpdu, from_master=True)
    broken = good[:3] + bytes([good[3] ^ 0xFF]) + good[4:]  # header CRC no longer holds
    continuation = user_data(1024, 1, bytes([0x80 | 7]) + b"\x00", from_master=True)
    decoded = decode(
        [
            record(1, b"\x01\x02", "received", dropped="no start octets"),
            record(2, broken),
            record(3, continuation),
        ]
    )
    assert decoded[0].problem == "not a frame: no start octets"
    assert decoded[1].problem is not None and decoded[1].problem.startswith("not a good frame")
    assert decoded[2].problem == "a segment with no first segment before it"
    assert all(item.packet is None for item in decoded)
