"""operate against a session replaying literal response octets: what is sent (octet for
octet), how echoes and statuses are read, and that nothing is ever sent twice.

Objects, by hand (IEEE 1815-2012 layouts):
  CROB g12v1, qualifier 0x17 (1-octet count, 1-octet index prefix):
    0C 01 17 01 03 | 03 01 64000000 64000000 00
    index 3 | code 03 LATCH_ON, count 1, on 100 ms, off 100 ms, status 00 SUCCESS
  Analog output g41, qualifier 0x17, index 7, then the value and the status octet:
    v1 (int32)  29 01 17 01 07 | 0C000000 | 00          12
    v2 (int16)  29 02 17 01 07 | 0C00 | 00              12
    v3 (float)  29 03 17 01 07 | 00004841 | 00          12.5 = 0x41480000
    v4 (double) 29 04 17 01 07 | 0000000000002940 | 00  12.5 = 0x4029000000000000
A request is C<seq> <function> <objects>; a response C<seq> 81 <IIN1> <IIN2> <objects>.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from gridwire.errors import ConnectionFailed, NotAllowed, RequestError
from gridwire.master import gate
from gridwire.master.controls import build_body, operate
from tests.master.fakes import TIMEOUT, FakeSession, Reply

CROB_3 = "0c01170103" + "0301" + "64000000" + "64000000"  # the status octet follows
LATCH_ON_3 = CROB_3 + "00"
AO_7_V1 = "2901170107" + "0c000000" + "00"
AO_7_V2 = "2902170107" + "0c00" + "00"
AO_7_V3 = "2903170107" + "00004841" + "00"
AO_7_V4 = "2904170107" + "0000000000002940" + "00"


def fragment(hex_text: str) -> bytes:
    return bytes.fromhex(hex_text)


def response(seq: int, objects: str, iin: str = "0000") -> Reply:
    return Reply([fragment(f"c{seq:x}81{iin}{objects}")])


async def test_direct_operate_latch_on_accepted() -> None:
    session = FakeSession([response(0, LATCH_ON_3)])
    result = await operate(session, {"bo": {"3": True}})
    assert [s.fragment.hex() for s in session.sent] == ["c005" + LATCH_ON_3]
    assert result.mode == "direct"
    assert result.operated is True
    assert result.accepted is True
    [status] = result.statuses
    assert (status.type, status.index, status.variation, status.value) == ("bo", 3, 1, "LATCH_ON")
    assert (status.status, status.echoed, status.name) == ("SUCCESS", True, None)
    [exchange] = result.exchanges
    assert (exchange.function, exchange.outcome, exchange.sequence) == (
        "DIRECT_OPERATE",
        "complete",
        0,
    )
    assert exchange.request == "c005" + LATCH_ON_3


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (False, "04"),  # LATCH_OFF
        ("PULSE_ON", "01"),
        ("pulse_off", "02"),
        ("TRIP_PULSE_ON", "81"),
        ("CLOSE_PULSE_ON", "41"),
    ],
)
async def test_binary_output_operations_by_name(value: object, code: str) -> None:
    objects = "0c01170103" + code + "01" + "64000000" + "64000000" + "00"
    session = FakeSession([response(0, objects)])
    result = await operate(session, {"bo": {"3": value}})
    assert session.sent[0].fragment.hex() == "c005" + objects
    assert result.accepted is True and result.statuses[0].echoed


async def test_refused_control_is_an_answer_with_accepted_false() -> None:
    # The outstation echoes the CROB with status 04 NOT_SUPPORTED.
    session = FakeSession([response(0, CROB_3 + "04")])
    result = await operate(session, {"bo": {"3": True}})
    assert result.accepted is False
    assert result.operated is True
    assert result.statuses[0].status == "NOT_SUPPORTED"
    assert result.statuses[0].echoed is True  # the control came back as sent


async def test_refused_whole_request_by_indication() -> None:
    # IIN2 bit 0 FUNC_NOT_SUPPORTED (IIN octets 00 01), no objects echoed.
    session = FakeSession([response(0, "", iin="0001")])
    result = await operate(session, {"bo": {"3": True}})
    assert result.accepted is False
    assert result.statuses[0].status is None and result.statuses[0].echoed is False
    assert result.exchanges[0].indications == ["FUNC_NOT_SUPPORTED"]


async def test_echo_that_differs_from_what_was_sent() -> None:
    # Same index and status, but the on time came back as 200 ms (C8 00 00 00).
    session = FakeSession([response(0, "0c01170103" + "0301" + "c8000000" + "64000000" + "00")])
    result = await operate(session, {"bo": {"3": True}})
    assert result.statuses[0].echoed is False
    assert result.statuses[0].status == "SUCCESS"
    assert result.accepted is True


@pytest.mark.parametrize(
    ("value", "variation", "objects", "sent_value"),
    [
        (12, None, AO_7_V1, 12),  # a whole number: g41v1
        (12.5, None, AO_7_V3, 12.5),  # anything else: g41v3
        (12, 2, AO_7_V2, 12),
        (12.0, 1, AO_7_V1, 12),  # a float with a whole value fits an integer variation
        (12.5, 4, AO_7_V4, 12.5),
        (12, 3, "29031701070000404100", 12.0),  # 12.0 = 0x41400000
    ],
)
async def test_analog_output_variations(
    value: float, variation: int | None, objects: str, sent_value: float
) -> None:
    session = FakeSession([response(0, objects)])
    result = await operate(session, {"ao": {"7": value}}, variation=variation)
    assert session.sent[0].fragment.hex() == "c005" + objects
    [status] = result.statuses
    assert (status.type, status.index, status.value) == ("ao", 7, sent_value)
    assert status.variation == int(objects[2:4])
    assert (status.status, status.echoed, result.accepted) == ("SUCCESS", True, True)


async def test_single_precision_echo_compares_after_rounding() -> None:
    # 0.1 travels as 0x3DCCCCCD (0.100000001...): the echo of those octets is the control.
    objects = "2903170107" + "cdcccc3d" + "00"
    session = FakeSession([response(0, objects)])
    result = await operate(session, {"ao": {"7": 0.1}})
    assert session.sent[0].fragment.hex() == "c005" + objects
    assert result.statuses[0].echoed is True


async def test_binary_and_analog_outputs_in_one_request() -> None:
    # bo 3, then ao 7 = 12 (g41v1) and ao 300 = 1.5 (g41v3, index 300 needs qualifier 0x28:
    # 2-octet count 01 00, 2-octet index 2C 01; 1.5 = 0x3FC00000).
    ao_300 = "29032801002c01" + "0000c03f" + "00"
    objects = LATCH_ON_3 + AO_7_V1 + ao_300
    session = FakeSession([response(0, objects)])
    result = await operate(session, {"ao": {"7": 12, "300": 1.5}, "bo": {"3": True}})
    assert session.sent[0].fragment.hex() == "c005" + objects
    assert [(s.type, s.index, s.variation) for s in result.statuses] == [
        ("bo", 3, 1),
        ("ao", 7, 1),
        ("ao", 300, 3),
    ]
    assert result.accepted is True


async def test_one_refused_control_among_several() -> None:
    sent = LATCH_ON_3 + AO_7_V1
    echoed = LATCH_ON_3 + "2901170107" + "0c000000" + "0c"  # ao 7 refused: 0C OUT_OF_RANGE
    session = FakeSession([response(0, echoed)])
    result = await operate(session, {"bo": {"3": True}, "ao": {"7": 12}})
    assert session.sent[0].fragment.hex() == "c005" + sent
    assert [s.status for s in result.statuses] == ["SUCCESS", "OUT_OF_RANGE"]
    assert result.accepted is False


async def test_select_then_operate_on_the_next_sequence_with_identical_objects() -> None:
    session = FakeSession([response(0, LATCH_ON_3), response(1, LATCH_ON_3)])
    result = await operate(session, {"bo": {"3": True}}, mode="select")
    assert [s.fragment.hex() for s in session.sent] == ["c003" + LATCH_ON_3, "c104" + LATCH_ON_3]
    assert [e.function for e in result.exchanges] == ["SELECT", "OPERATE"]
    assert (result.mode, result.operated, result.accepted) == ("select", True, True)


async def test_refused_select_is_not_operated() -> None:
    session = FakeSession([response(0, CROB_3 + "04")])
    result = await operate(session, {"bo": {"3": True}}, mode="select")
    assert len(session.sent) == 1
    assert (result.operated, result.accepted) == (False, False)
    assert [e.function for e in result.exchanges] == ["SELECT"]
    assert result.statuses[0].status == "NOT_SUPPORTED"


async def test_operate_refused_after_a_good_select_reports_no_select() -> None:
    # The select is accepted; the outstation answers the operate with 02 NO_SELECT.
    session = FakeSession([response(0, LATCH_ON_3), response(1, CROB_3 + "02")])
    result = await operate(session, {"bo": {"3": True}}, mode="select")
    assert (result.operated, result.accepted) == (True, False)
    assert result.statuses[0].status == "NO_SELECT"


async def test_select_that_times_out_is_not_operated_nor_repeated() -> None:
    session = FakeSession([TIMEOUT])
    result = await operate(session, {"bo": {"3": True}}, mode="select")
    assert len(session.sent) == 1
    assert (result.operated, result.accepted) == (False, None)
    assert result.exchanges[0].outcome == "timeout"


async def test_direct_operate_that_times_out_is_never_sent_again() -> None:
    session = FakeSession([TIMEOUT])
    result = await operate(session, {"ao": {"7": 12}})
    assert len(session.sent) == 1
    assert result.accepted is None
    assert result.operated is True
    assert (result.statuses[0].status, result.statuses[0].echoed) == (None, False)


async def test_direct_no_ack() -> None:
    session = FakeSession([])  # no reply is ever asked for
    result = await operate(session, {"bo": {"3": True}}, mode="direct_no_ack")
    assert [s.fragment.hex() for s in session.sent] == ["c006" + LATCH_ON_3]
    assert (result.mode, result.operated, result.accepted) == ("direct_no_ack", True, None)
    assert result.exchanges[0].outcome == "sent"
    assert result.statuses[0].status is None


@dataclass(frozen=True)
class _Point:
    multiplier: float
    offset: float = 0.0

    def to_raw(self, engineering: float) -> int:
        return round((engineering - self.offset) / self.multiplier)


class _Profile:
    """AO 7 scaled by 0.1 (engineering = raw x 0.1); AO 8 unscaled; names for both."""

    points = {("AO", 7): _Point(0.1), ("AO", 8): _Point(1.0)}

    def name_of(self, type_name: str, index: int) -> str | None:
        return {("ao", 7): "Active power limit", ("bo", 3): "Connect"}.get((type_name, index))

    def get(self, kind: str, index: int) -> _Point | None:
        return self.points.get((kind, index))


async def test_scaled_point_float_is_engineering_and_integer_is_transmitted() -> None:
    # 12.5 in engineering units at x0.1 is 125 (7D 00 00 00) transmitted as g41v1.
    ao_7_125 = "2901170107" + "7d000000" + "00"
    profile = _Profile()
    session = FakeSession([response(0, ao_7_125)])
    result = await operate(session, {"ao": {"7": 12.5}}, profile=profile)
    assert session.sent[0].fragment.hex() == "c005" + ao_7_125
    [status] = result.statuses
    assert (status.value, status.variation, status.name) == (125, 1, "Active power limit")
    assert (status.echoed, result.accepted) == (True, True)
    # On the unscaled AO 8, 2.5 stays a float (g41v3, 0x40200000), in a header of its own.
    both = ao_7_125 + "2903170108" + "00002040" + "00"
    session = FakeSession([response(0, both)])
    result = await operate(session, {"ao": {"7": 12.5, "8": 2.5}}, profile=profile)
    assert session.sent[0].fragment.hex() == "c005" + both
    assert [(s.index, s.value, s.name) for s in result.statuses] == [
        (7, 125, "Active power limit"),
        (8, 2.5, None),
    ]
    # An integer is the transmitted value itself.
    session = FakeSession([response(0, AO_7_V1)])
    result = await operate(session, {"ao": {"7": 12}}, profile=profile)
    assert session.sent[0].fragment.hex() == "c005" + AO_7_V1
    # A float variation carries engineering units (D81): 12.5 forced to g41v3 goes as 12.5
    # (0x41480000), not as the 125 an integer variation carries.
    ao_7_float = "2903170107" + "00004841" + "00"
    session = FakeSession([response(0, ao_7_float)])
    result = await operate(session, {"ao": {"7": 12.5}}, variation=3, profile=profile)
    assert session.sent[0].fragment.hex() == "c005" + ao_7_float
    assert [(s.value, s.variation) for s in result.statuses] == [(12.5, 3)]


@pytest.mark.parametrize(
    ("points", "mode", "variation", "words"),
    [
        ({}, "direct", None, "at least one control"),
        ({"bo": {}}, "direct", None, "at least one control"),
        ({"bi": {"1": True}}, "direct", None, "unknown type bi"),
        ({"bo": {"x": True}}, "direct", None, "bo index 'x'"),
        ({"bo": {"70000": True}}, "direct", None, "bo index 70000"),
        ({"bo": {"3": 1}}, "direct", None, "bo 3: 1 is not true, false or an operation"),
        ({"bo": {"3": "FLIP"}}, "direct", None, "bo 3: 'FLIP'"),
        ({"ao": {"7": True}}, "direct", None, "ao 7: True is not a number"),
        ({"ao": {"7": "12"}}, "direct", None, "ao 7: '12' is not a number"),
        ({"ao": {"7": float("inf")}}, "direct", None, "ao 7: inf is not a finite number"),
        ({"ao": {"7": 12.5}}, "direct", 1, "ao 7: 12.5 is not a whole number"),
        ({"ao": {"7": 40000}}, "direct", 2, "ao 7: 40000 does not fit g41v2"),
        ({"ao": {"7": 2**31}}, "direct", None, "does not fit g41v1"),
        ({"ao": {"7": 1e39}}, "direct", None, "does not fit g41v3"),
        ({"ao": {"7": 1}}, "direct", 5, "variation 5 is not 1, 2, 3 or 4"),
        ({"bo": {"3": True}}, "sometimes", None, "mode 'sometimes'"),
        ({"bo": {"3": True}, "ao": {"7": "x"}}, "direct", None, "ao 7"),
    ],
)
async def test_everything_is_checked_before_anything_is_sent(
    points: dict[str, dict[str, object]], mode: str, variation: int | None, words: str
) -> None:
    session = FakeSession([])
    with pytest.raises(RequestError, match=words):
        await operate(session, points, mode, variation)
    assert session.sent == []


async def test_not_allowed_without_control_sends_nothing() -> None:
    session = FakeSession([], allow_control=False)
    with pytest.raises(NotAllowed, match=re.escape(gate.NOT_ALLOWED)):
        await operate(session, {"bo": {"3": True}})
    assert session.sent == []


async def test_not_connected() -> None:
    session = FakeSession([], connected=False)
    with pytest.raises(ConnectionFailed):
        await operate(session, {"bo": {"3": True}})


def test_build_body_is_the_objects_only() -> None:
    assert build_body({"bo": {3: True}}).hex() == LATCH_ON_3
