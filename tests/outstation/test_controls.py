"""Controls: select-before-operate rules, direct operate, no-ack silence, statuses echoed in
request order. Requests are literal octets laid out by IEEE 1815-2012:

CROB g12v1 (0C 01), qualifier 0x17 (1-octet count, 1-octet index prefix), count 01, index 00,
then control code 03 (LATCH_ON), count 01, on-time 100 ms (64 00 00 00), off-time 100 ms,
status 00. The response echoes the objects with each status octet (the last) filled in.
"""

from __future__ import annotations

from gridwire.dnp3.app.iin import IIN
from gridwire.outstation.controls import AnalogCommand, BinaryCommand
from gridwire.outstation.generic import GenericDevice
from tests.outstation.wire import Wire, hexes

LATCH_ON_0 = "0C 01 17 01 00 03 01 64 00 00 00 64 00 00 00 00"
LATCH_ON_1 = "0C 01 17 01 01 03 01 64 00 00 00 64 00 00 00 00"


def _bo(wire: Wire, index: int) -> object:
    return wire.session.database.get("bo", index).value


def _handler(wire: Wire) -> GenericDevice:
    device = wire.session.device
    assert isinstance(device, GenericDevice)
    return device


def test_direct_operate_literal(wire: Wire) -> None:
    # The output's status changed, and that change is a class 1 event (the small database's
    # outputs have class 1): IIN1.1 (0x02) is already set in this response.
    assert hexes(wire.send(f"C0 05 {LATCH_ON_0}")) == [f"C0 81 92 00 {LATCH_ON_0}"]
    assert _bo(wire, 0) is True
    assert _handler(wire).log == [("direct", BinaryCommand(0, 0x03, 1, 100, 100))]


def test_select_then_operate_on_the_next_sequence(wire: Wire) -> None:
    assert hexes(wire.send(f"C1 03 {LATCH_ON_0}", now=1.0)) == [f"C1 81 90 00 {LATCH_ON_0}"]
    assert _bo(wire, 0) is False  # a select only asks
    assert hexes(wire.send(f"C2 04 {LATCH_ON_0}", now=2.0)) == [f"C2 81 92 00 {LATCH_ON_0}"]
    assert _bo(wire, 0) is True
    assert [mode for mode, _ in _handler(wire).log] == ["select", "operate"]


def test_operate_without_select_is_no_select(wire: Wire) -> None:
    # Status 02 (NO_SELECT) in the echoed status octet; nothing operated.
    answer = hexes(wire.send(f"C2 04 {LATCH_ON_0}"))
    assert answer == [f"C2 81 90 00 {LATCH_ON_0[:-2]}02"]
    assert _bo(wire, 0) is False


def test_operate_on_another_sequence_is_no_select(wire: Wire) -> None:
    wire.send(f"C1 03 {LATCH_ON_0}")
    assert hexes(wire.send(f"C3 04 {LATCH_ON_0}")) == [f"C3 81 90 00 {LATCH_ON_0[:-2]}02"]
    assert _bo(wire, 0) is False


def test_operate_with_other_objects_is_no_select(wire: Wire) -> None:
    wire.send(f"C1 03 {LATCH_ON_0}")
    assert hexes(wire.send(f"C2 04 {LATCH_ON_1}")) == [f"C2 81 90 00 {LATCH_ON_1[:-2]}02"]
    assert _bo(wire, 1) is False


def test_a_request_between_select_and_operate_cancels_the_select(wire: Wire) -> None:
    wire.send(f"C1 03 {LATCH_ON_0}")
    wire.send("C2 01 3C 01 06")
    assert hexes(wire.send(f"C2 04 {LATCH_ON_0}"))[0].endswith("02")
    assert _bo(wire, 0) is False


def test_operate_after_the_select_timeout_is_timeout(wire: Wire) -> None:
    wire.send(f"C1 03 {LATCH_ON_0}", now=1.0)
    # 10 s select timeout: at 11.5 s the selection has expired. Status 01 (TIMEOUT).
    assert hexes(wire.send(f"C2 04 {LATCH_ON_0}", now=11.5)) == [f"C2 81 90 00 {LATCH_ON_0[:-2]}01"]
    assert _bo(wire, 0) is False


def test_one_operate_per_select_and_repeats_are_not_carried_out_twice(wire: Wire) -> None:
    wire.send(f"C1 03 {LATCH_ON_0}")
    first = wire.send(f"C2 04 {LATCH_ON_0}")
    # The same request again (same sequence, same octets): the same response, not executed.
    assert wire.send(f"C2 04 {LATCH_ON_0}") == first
    assert [mode for mode, _ in _handler(wire).log] == ["select", "operate"]
    # Another operate on the next sequence has no selection left.
    assert hexes(wire.send(f"C3 04 {LATCH_ON_0}"))[0].endswith("02")


def test_a_refused_select_arms_nothing(wire: Wire) -> None:
    # Index 9 has no binary output: NOT_SUPPORTED (04); the operate then finds no selection.
    crob_9 = "0C 01 17 01 09 03 01 64 00 00 00 64 00 00 00 00"
    assert hexes(wire.send(f"C1 03 {crob_9}")) == [f"C1 81 90 00 {crob_9[:-2]}04"]
    assert hexes(wire.send(f"C2 04 {crob_9}")) == [f"C2 81 90 00 {crob_9[:-2]}02"]


def test_statuses_echoed_in_request_order(wire: Wire) -> None:
    # Two CROBs (index 9: no such output; index 1) with qualifier 0x28 (2-octet count and
    # 2-octet indexes), then g41v1 (29 01) index 0 value 1000 (E8 03 00 00) and g41v2 (29 02)
    # index 3 (no such output) value -5 (FB FF).
    request = (
        "0C 01 28 02 00"
        " 09 00 03 01 64 00 00 00 64 00 00 00 00"
        " 01 00 03 01 64 00 00 00 64 00 00 00 00"
        " 29 01 17 01 00 E8 03 00 00 00"
        " 29 02 17 01 03 FB FF 00"
    )
    expected = (
        "0C 01 28 02 00"
        " 09 00 03 01 64 00 00 00 64 00 00 00 04"
        " 01 00 03 01 64 00 00 00 64 00 00 00 00"
        " 29 01 17 01 00 E8 03 00 00 00"
        " 29 02 17 01 03 FB FF 04"
    )
    assert hexes(wire.send(f"C0 05 {request}")) == [f"C0 81 92 00 {expected}"]
    assert _bo(wire, 1) is True
    assert wire.session.database.get("ao", 0).value == 1000


def test_analog_output_variations(wire: Wire) -> None:
    # g41v3 (float): 2.5 = 00 00 20 40; g41v4 (double): -0.5 = 00 00 00 00 00 00 E0 BF.
    wire.send("C0 05 29 03 17 01 00 00 00 20 40 00")
    assert _handler(wire).log[-1] == ("direct", AnalogCommand(0, 2.5, 3))
    wire.send("C1 05 29 04 17 01 00 00 00 00 00 00 00 E0 BF 00")
    assert _handler(wire).log[-1] == ("direct", AnalogCommand(0, -0.5, 4))


def test_direct_operate_no_ack_is_carried_out_in_silence(wire: Wire) -> None:
    assert wire.send(f"C0 06 {LATCH_ON_1}") == []
    assert _bo(wire, 1) is True
    # Even a refused one draws nothing (index 9 does not exist).
    assert wire.send("C1 06 0C 01 17 01 09 03 01 64 00 00 00 64 00 00 00 00") == []


def test_too_many_controls() -> None:
    from tests.outstation.conftest import make_wire

    wire = make_wire(max_controls=1)
    request = "0C 01 17 02 00 03 01 64 00 00 00 64 00 00 00 00 01 03 01 64 00 00 00 64 00 00 00 00"
    # Both answered TOO_MANY_OBJS (08), neither carried out.
    assert hexes(wire.send(f"C0 05 {request}")) == [
        "C0 81 90 00 0C 01 17 02"
        " 00 03 01 64 00 00 00 64 00 00 00 08"
        " 01 03 01 64 00 00 00 64 00 00 00 08"
    ]
    assert wire.session.database.get("bo", 0).value is False


def test_malformed_controls_are_refused_out_loud(wire: Wire) -> None:
    # A CROB with a count qualifier (0x07) carries no index: PARAMETER_ERROR.
    answer = wire.ask("C0 05 0C 01 07 01 03 01 64 00 00 00 64 00 00 00 00")
    assert answer.iin & IIN.PARAMETER_ERROR and answer.objects == []
    # g12v2 (pattern control block) is not a control this outstation takes: OBJECT_UNKNOWN.
    answer = wire.ask("C1 05 0C 02 07 01 03 01 64 00 00 00 64 00 00 00 00")
    assert answer.iin & IIN.OBJECT_UNKNOWN
    # A CROB cut short: the request cannot be read to its end: PARAMETER_ERROR.
    answer = wire.ask("C2 05 0C 01 17 01 00 03 01 64")
    assert answer.iin & IIN.PARAMETER_ERROR
    assert wire.session.database.get("bo", 0).value is False
