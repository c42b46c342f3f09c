"""The parts of the deviation checks, pinned with octets derived by hand: which fragment a frame
of the trace begins (families/frames.py), the probe's size and window, the count of probes
after a deviation (a late answer counts), and how events are told apart and named."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from gridwire.der.points import Kind, Point
from gridwire.dnp3.link import MAX_FRAME, frame_size
from gridwire.dnp3.objects.records import DnpObject
from gridwire.evaluate.families import link
from gridwire.evaluate.families.confirmation import counted, key, shown, timed
from gridwire.evaluate.families.frames import (
    Begun,
    begun,
    confirms_of,
    first_request,
    fragments,
    responses_to,
)
from gridwire.master.records import FrameRecord


def record(id: int, direction: str, octets: str) -> FrameRecord:
    return FrameRecord(id, 1000.0 + id, direction, octets.replace(" ", ""), "")  # type: ignore[arg-type]


# READ class 0, master 1 -> outstation 1024: LENGTH 0B (5 + 6 octets of user data), control
# C4 (DIR, PRM, unconfirmed user data), destination 00 04, source 01 00, then transport C0
# (FIR, FIN, segment 0), application C5 (FIR, FIN, sequence 5), READ 01, g60v1 q06. The CRCs
# are FF FF: the reading ignores them, as a deviation may have broken them on purpose.
READ_SEQ_5 = "05 64 0B C4 00 04 01 00 FF FF C0 C5 01 3C 01 06 FF FF"
# A response, outstation -> master: LENGTH 0A, control 44 (PRM, user data; DIR clear),
# transport C1, application E3 (FIR, FIN, CON, sequence 3), RESPONSE 81, IIN 90 00.
RESPONSE_SEQ_3 = "05 64 0A 44 01 00 00 04 FF FF C1 E3 81 90 00 FF FF"
# The first of two fragments: application A3 (FIR, CON, no FIN).
FIRST_OF_TWO_SEQ_3 = "05 64 0A 44 01 00 00 04 FF FF C1 A3 81 90 00 FF FF"
# The same as an unsolicited response: application F3 (UNS too), function 82.
UNSOLICITED_SEQ_3 = "05 64 0A 44 01 00 00 04 FF FF C2 F3 82 90 00 FF FF"
# A CONFIRM of sequence 3 (application C3, function 00).
CONFIRM_SEQ_3 = "05 64 08 C4 00 04 01 00 FF FF C1 C3 00 FF FF"
# A segment that is not a fragment's first (transport 81: FIN, no FIR).
NOT_FIRST = "05 64 0B C4 00 04 01 00 FF FF 81 C5 01 3C 01 06 FF FF"
# REQUEST_LINK_STATUS (control C9): no user data.
LINK_STATUS = "05 64 05 C9 00 04 01 00 FF FF"


def test_the_fragment_a_frame_begins() -> None:
    assert begun(record(1, "sent", READ_SEQ_5)) == Begun(
        1, 1001.0, True, 5, 0x01, False, False, True
    )
    response = begun(record(2, "received", RESPONSE_SEQ_3))
    assert response == Begun(2, 1002.0, False, 3, 0x81, True, False, True)
    assert response.is_response and not response.is_confirm
    first = begun(record(6, "received", FIRST_OF_TWO_SEQ_3))
    assert first == Begun(6, 1006.0, False, 3, 0x81, True, False, False)
    unsolicited = begun(record(3, "received", UNSOLICITED_SEQ_3))
    assert unsolicited is not None and unsolicited.uns and not unsolicited.is_response
    confirm = begun(record(4, "sent", CONFIRM_SEQ_3))
    assert confirm is not None and confirm.is_confirm and confirm.seq == 3
    for octets in (NOT_FIRST, LINK_STATUS, "05 64", "00 11 22 33 44 55 66 77 88 99 AA BB CC"):
        assert begun(record(5, "sent", octets)) is None


def test_requests_responses_and_confirms_found_in_a_trace() -> None:
    items = fragments(
        [
            record(1, "sent", NOT_FIRST),
            record(2, "sent", READ_SEQ_5),
            record(3, "received", UNSOLICITED_SEQ_3),
            record(4, "received", RESPONSE_SEQ_3),
            record(5, "sent", CONFIRM_SEQ_3),
            record(6, "received", RESPONSE_SEQ_3),
        ]
    )
    request = first_request(items)
    assert request is not None and (request.id, request.seq) == (2, 5)
    assert [r.id for r in responses_to(items, 3)] == [4, 6]
    assert responses_to(items, 5) == []
    assert [c.id for c in confirms_of(items, 3)] == [5]
    assert first_request(fragments([record(1, "sent", CONFIRM_SEQ_3)])) is None


def point(kind: Kind, index: int) -> Point:
    return Point(kind, index, f"{kind}{index}")


def test_the_probe_is_one_point_read_in_a_frame_of_at_least_98_octets() -> None:
    assert link.PROBE_FRAME == 98 and 3 * link.PROBE_FRAME >= MAX_FRAME == 292
    # AI0: g30v0, qualifier 00, start 00, stop 00 (5 octets). Fifteen of them and the three
    # octets of transport and application header make 78 octets of user data: LENGTH 83, a
    # frame of 10 + 78 + 5 CRCs of 2 = 98 octets. Fourteen would make 93.
    body = link.probe_body(point(Kind.AI, 0))
    assert body == bytes.fromhex("1E 00 00 00 00") * 15
    assert frame_size(5 + 3 + len(body)) == 98
    # BO300: g10v0, qualifier 01, start and stop 2C 01 (7 octets); eleven make a 100-octet frame.
    body = link.probe_body(point(Kind.BO, 300))
    assert body == bytes.fromhex("0A 00 01 2C 01 2C 01") * 11
    assert frame_size(5 + 3 + len(body)) == 100
    assert frame_size(5 + 3 + 70) < 98


@pytest.mark.parametrize(
    ("round_trip", "timeout", "expected"),
    [(0.001, 5.0, 0.25), (0.04, 5.0, 0.4), (0.3, 5.0, 3.0), (1.0, 5.0, 5.0), (0.001, 0.1, 0.1)],
)
def test_the_window_is_ten_round_trips_at_least_a_quarter_second(
    round_trip: float, timeout: float, expected: float
) -> None:
    assert link.window(round_trip, timeout) == pytest.approx(expected)


@dataclass
class ScriptedProber:
    """Probes answered (or not) in their window as scripted; ``late`` holds the numbers of
    probes whose answer the trace shows once the next probe is about to go."""

    answered: list[bool]
    late: set[int] = field(default_factory=set)
    waits: list[float | None] = field(default_factory=list)

    async def send(self, wait: float | None) -> link.Probe:
        number = len(self.waits) + 1
        self.waits.append(wait)
        begun = Begun(number, 0.0, True, number, 1, False, False, True)
        return link.Probe(self.answered[number - 1], "", begun, 0.0)

    def answers(self, probe: link.Probe) -> list[Begun]:
        assert probe.request is not None
        return [probe.request] if probe.request.id in self.late else []


async def test_probes_after_the_deviation_the_last_given_the_whole_timeout() -> None:
    prober = ScriptedProber([False, False, True])
    assert await link._answered_again(prober, 3, 0.25) == 3  # type: ignore[arg-type]
    assert prober.waits == [0.25, 0.25, None]
    prober = ScriptedProber([True])
    assert await link._answered_again(prober, 3, 0.25) == 1  # type: ignore[arg-type]
    assert prober.waits == [0.25]
    prober = ScriptedProber([False])
    assert await link._answered_again(prober, 1, 0.25) is None  # type: ignore[arg-type]
    assert prober.waits == [None]


async def test_an_answer_after_its_window_counts_and_no_more_probes_go() -> None:
    prober = ScriptedProber([False, False, False], late={1})
    assert await link._answered_again(prober, 3, 0.25) == 1  # type: ignore[arg-type]
    assert prober.waits == [0.25]
    prober = ScriptedProber([False, False, False], late={3})
    assert await link._answered_again(prober, 3, 0.25) == 3  # type: ignore[arg-type]


def event(value: float, time_ms: int | None, index: int = 3) -> DnpObject:
    return DnpObject("ai", 32, 3, index, None, value, ["ONLINE"], time_ms, True, True)


def test_events_are_told_apart_by_point_value_flags_and_time() -> None:
    assert key(event(5, 1000)) == key(event(5, 1000))
    assert key(event(5, 1000)) != key(event(5, 1001))
    assert key(event(5, 1000)) != key(event(6, 1000))
    assert key(event(5, 1000)) != key(event(5, 1000, index=4))
    nan = float("nan")
    assert key(event(nan, 1000)) == key(event(nan, 1000))  # a NaN is still the same event
    assert timed(event(5, 1000)) and not timed(event(5, None))
    assert not timed(event(5, 0))  # opendnp3's time of an event given none


def test_events_named_in_a_detail() -> None:
    # 1 700 000 000 000 ms since the epoch is 2023-11-14T22:13:20Z.
    events = [event(v, 1_700_000_000_000 + v) for v in range(6)]
    assert shown(events[:1]) == "AI3 = 0 at 2023-11-14T22:13:20.000Z"
    assert shown(events).endswith("AI3 = 3 at 2023-11-14T22:13:20.003Z and 2 more")
    odd = DnpObject(None, 110, 4, 2, None, b"ab", None, None, None, True)
    assert shown([odd]) == "g110v4 2 = b'ab'"
    assert (counted(1), counted(0), counted(2)) == ("1 event", "0 events", "2 events")
