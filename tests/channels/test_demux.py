"""The multi-drop demultiplexer, sans-IO, against literal octets (tests/master/test_association.py's
frames, laid out by hand from IEEE 1815-2012 with the tests' own CRC): each frame goes to the
outstation whose link address is its source; a frame from an unknown address is dropped and
logged at most once a minute; our own requests echoed by a line are dropped unlogged; a silence
longer than the inter-character timeout inside a frame throws the partial frame away."""

from __future__ import annotations

from gridwire.channels.demux import Demux
from tests.channels.frames import frame
from tests.master.test_association import INTEGRITY, NULL_RESPONSE, NULL_UNSOLICITED

NULL_FROM_1025 = frame(0x44, 1, 1025, bytes.fromhex("c0 c0 81 00 00"))
NULL_FROM_1030 = frame(0x44, 1, 1030, bytes.fromhex("c0 c0 81 00 00"))


def test_frames_go_to_their_source_address() -> None:
    demux = Demux()
    routed = demux.feed(NULL_RESPONSE + NULL_FROM_1025 + NULL_UNSOLICITED, 0.0, {1024, 1025})
    assert routed.frames == [
        (1024, NULL_RESPONSE),
        (1025, NULL_FROM_1025),
        (1024, NULL_UNSOLICITED),
    ]
    assert not routed.unknown


def test_a_frame_cut_anywhere_is_routed_whole() -> None:
    demux = Demux()
    data = NULL_FROM_1025 + NULL_RESPONSE
    got = []
    for at in range(len(data)):
        got += demux.feed(data[at : at + 1], float(at) * 0.001, {1024, 1025}).frames
    assert got == [(1025, NULL_FROM_1025), (1024, NULL_RESPONSE)]


def test_unknown_addresses_are_dropped_and_logged_once_a_minute() -> None:
    demux = Demux()
    first = demux.feed(NULL_FROM_1030, 0.0, {1024})
    assert first.frames == [] and first.log_unknown
    again = demux.feed(NULL_FROM_1030, 30.0, {1024})
    assert not again.log_unknown
    later = demux.feed(NULL_FROM_1030, 60.0, {1024})
    assert later.log_unknown
    assert demux.counts.unknown_frames == 3 and demux.counts.last_unknown_address == 1030


def test_added_but_not_connected_is_not_unknown() -> None:
    demux = Demux()
    routed = demux.feed(NULL_FROM_1025, 0.0, {1024}, {1024, 1025})
    assert routed.frames == [] and not routed.log_unknown
    assert demux.counts.unattached_frames == 1 and demux.counts.unknown_frames == 0


def test_our_own_request_echoed_is_dropped_unlogged() -> None:
    demux = Demux()
    routed = demux.feed(INTEGRITY, 0.0, {1024})
    assert routed.frames == [] and not routed.log_unknown
    assert demux.counts.echoed_frames == 1


def test_inter_character_timeout_drops_a_partialframe() -> None:
    demux = Demux(inter_character=0.1)
    assert demux.feed(NULL_RESPONSE[:7], 0.0, {1024}).frames == []
    # 0.5 s of silence: the first 7 octets are thrown away; the rest is garbage, then a frame.
    routed = demux.feed(NULL_RESPONSE[7:] + NULL_RESPONSE, 0.5, {1024})
    assert routed.frames == [(1024, NULL_RESPONSE)]
    assert demux.counts.partial_frames == 1
    # Without the silence the same split frame is read whole.
    demux = Demux(inter_character=0.1)
    demux.feed(NULL_RESPONSE[:7], 0.0, {1024})
    assert demux.feed(NULL_RESPONSE[7:], 0.05, {1024}).frames == [(1024, NULL_RESPONSE)]
