"""Fragments: the application control octet, request and response headers, what is an error
and what is reported as undecoded. Octets laid out by hand from IEEE 1815-2012 4.2.2."""

from __future__ import annotations

import pytest

from gridwire.dnp3.app.control import AppControl
from gridwire.dnp3.app.fragments import (
    Undecoded,
    encode_request,
    encode_response,
    parse_request,
    parse_response,
)
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.errors import DecodeError, EncodeError

H = bytes.fromhex
# g30v1 (32-bit analog with flag), 0x00 start 0 stop 0, flags ONLINE, value 42
ANALOG_42 = "1E 01 00 00 00 01 2A 00 00 00"


@pytest.mark.parametrize(
    ("octet", "control"),
    [
        (0xC3, AppControl(True, True, False, False, 3)),  # FIR|FIN, seq 3
        (0xF5, AppControl(True, True, True, True, 5)),  # FIR|FIN|CON|UNS, seq 5
        (0x8F, AppControl(True, False, False, False, 15)),  # first of several, seq 15
        (0x20, AppControl(False, False, True, False, 0)),
    ],
)
def test_application_control_octet(octet: int, control: AppControl) -> None:
    assert AppControl.from_octet(octet) == control
    assert control.to_octet() == octet


def test_application_sequence_must_fit_four_bits() -> None:
    with pytest.raises(EncodeError, match="outside 0-15"):
        AppControl.request(16).to_octet()


@pytest.mark.parametrize("fragment", ["", "C0"])
def test_request_without_a_header_is_an_error(fragment: str) -> None:
    with pytest.raises(DecodeError, match="at least 2"):
        parse_request(H(fragment))


@pytest.mark.parametrize("fragment", ["", "C0 81", "C0 81 00"])
def test_response_without_a_header_is_an_error(fragment: str) -> None:
    with pytest.raises(DecodeError, match="at least 4"):
        parse_response(H(fragment))


def test_unknown_function_codes_are_errors() -> None:
    with pytest.raises(DecodeError, match="unknown function code 0x22"):
        parse_request(H("C0 22"))
    with pytest.raises(DecodeError, match="unknown function code 0x84"):
        parse_response(H("C0 84 00 00"))


def test_a_function_of_the_other_direction_is_an_error() -> None:
    with pytest.raises(DecodeError, match="RESPONSE is a response"):
        parse_request(H("C0 81 00 00"))
    with pytest.raises(DecodeError, match="READ is a request"):
        parse_response(H("C0 01 3C 01 06"))


def test_response_header_and_indications() -> None:
    # IIN1 0x90 = NEED_TIME (bit 4) | DEVICE_RESTART (bit 7); IIN2 0x04 = PARAMETER_ERROR
    response = parse_response(H("E5 82 90 04"))
    assert response.control == AppControl(True, True, True, False, 5)
    assert response.function is FunctionCode.UNSOLICITED_RESPONSE
    assert response.iin == IIN.NEED_TIME | IIN.DEVICE_RESTART | IIN.PARAMETER_ERROR
    assert (response.headers, response.objects, response.undecoded) == ([], [], [])
    assert response.raw == H("E5 82 90 04")


def test_read_request_headers_carry_no_objects() -> None:
    # READ of: g1v0 start-stop 0..9; g30v0 all; g20v0 indexes 3 and 7 (0x17, count 2);
    # g60v2 (class 1) at most 5 events (0x07, count 5)
    fragment = H("C2 01  01 00 00 00 09  1E 00 06  14 00 17 02 03 07  3C 02 07 05")
    request = parse_request(fragment)
    assert request.function is FunctionCode.READ
    assert request.control.seq == 2
    shapes = [
        (h.group, h.variation, h.qualifier, h.start, h.stop, h.count, h.indices, h.objects)
        for h in request.headers
    ]
    assert shapes == [
        (1, 0, 0x00, 0, 9, 10, None, []),
        (30, 0, 0x06, None, None, None, None, []),
        (20, 0, 0x17, None, None, 2, [3, 7], []),
        (60, 2, 0x07, None, None, 5, None, []),
    ]
    assert [h.offset for h in request.headers] == [2, 7, 10, 16]
    assert request.objects == [] and request.undecoded == []
    assert request.raw == fragment


def test_direct_operate_request_decodes_its_crob() -> None:
    # DIRECT_OPERATE g12v1, 0x28 count 1, index 0: LATCH_ON (0x03), count 1, on 100 ms
    # (0x64), off 100 ms, status 0
    request = parse_request(H("C3 05 0C 01 28 01 00 00 00 03 01 64 00 00 00 64 00 00 00 00"))
    (crob,) = request.objects
    assert (crob.group, crob.variation, crob.index, crob.type) == (12, 1, 0, None)
    assert (crob.value.code, crob.value.op, crob.value.count) == (3, "LATCH_ON", 1)  # type: ignore[union-attr]
    assert (crob.value.on_ms, crob.value.off_ms, crob.value.status) == (100, 100, "SUCCESS")  # type: ignore[union-attr]


def test_freeze_at_time_carries_data_only_in_its_time_object() -> None:
    # FREEZE_AT_TIME: g50v2 count 1 (time 1000 ms = E8 03 00 00 00 00, interval 60000 ms =
    # 60 EA 00 00), then g20v0 all counters without data
    request = parse_request(H("C0 0B 32 02 07 01 E8 03 00 00 00 00 60 EA 00 00 14 00 06"))
    assert request.undecoded == []
    (when,) = request.objects
    assert when.value.time_ms == 1000 and when.value.interval == 60000  # type: ignore[union-attr]
    assert [(h.group, h.objects != []) for h in request.headers] == [(50, True), (20, False)]


def test_write_request_carries_data() -> None:
    # WRITE g80v1 start-stop 7..7, one octet 0x00: clear IIN1.7
    request = parse_request(H("C1 02 50 01 00 07 07 00"))
    (bit,) = request.objects
    assert (bit.group, bit.index, bit.value) == (80, 7, False)


def _stops(fragment: str) -> tuple[int, list[Undecoded]]:
    response = parse_response(H(fragment))
    return len(response.objects), response.undecoded


@pytest.mark.parametrize(
    ("fragment", "kept", "undecoded"),
    [
        # an unknown group/variation after a good object
        ("C0 81 00 00 " + ANALOG_42 + " 63 01 00 00 00 01", 1, (14, 99, 1, "unknown object g99v1")),
        # a known group with an unknown variation
        ("C0 81 00 00 1E 09 00 00 00 01", 0, (4, 30, 9, "unknown object g30v9")),
        # a range beyond the data: 0..2 is three 5-octet objects, two are there
        (
            "C0 81 00 00 1E 01 00 00 02 01 01 00 00 00 01 02 00 00 00",
            0,
            (4, 30, 1, "3 objects need 15 octets, 10 remain"),
        ),
        # a count of zero objects
        ("C0 81 00 00 32 01 07 00", 0, (4, 50, 1, "count of zero")),
        # a stop below its start
        ("C0 81 00 00 1E 01 00 05 03", 0, (4, 30, 1, "stop 3 is below start 5")),
        # a packed variation cannot take an index prefix
        ("C0 81 00 00 01 01 17 01 00 01", 0, (4, 1, 1, "cannot take qualifier 0x17")),
        # a free-format object needs its size prefix
        ("C0 81 00 00 46 05 07 01 00", 0, (4, 70, 5, "cannot take qualifier 0x07")),
        # a fixed-size object given the wrong size in a size prefix
        ("C0 81 00 00 1E 01 5B 01 04 00 01 02 03 04", 0, (4, 30, 1, "5 octets, not 4")),
        # "any variation" cannot be sized in a response
        ("C0 81 00 00 1E 00 00 00 00 01 00", 0, (4, 30, 0, "unknown object g30v0")),
        # an undefined qualifier
        ("C0 81 00 00 1E 01 0A 01", 0, (4, 30, 1, "0x0A is not defined")),
        # a header cut short after its group
        ("C0 81 00 00 " + ANALOG_42 + " 1E", 1, (14, 30, None, "truncated")),
        # a device attribute whose length runs past the fragment
        ("C0 81 00 00 00 F0 00 00 00 02 04 00", 0, (4, 0, 240, "4 octets: 1 remain")),
        # a device attribute of an unknown data type
        ("C0 81 00 00 00 F0 00 00 00 09 01 00", 0, (4, 0, 240, "unknown device attribute")),
        # a free-format object whose size runs past the fragment
        ("C0 81 00 00 46 08 5B 01 09 00 41", 0, (4, 70, 8, "need 9 octets, 1 remain")),
        # g70v7 of 22 octets (0x16) whose file name (offset 20, size 5) runs past the object:
        # offset, size, type, file size, creation time, permissions, request id, "AB"
        (
            "C0 81 00 00 46 07 5B 01 16 00 14 00 05 00 01 00 00 00 00 00"
            " 00 00 00 00 00 00 00 00 00 00 41 42",
            0,
            (4, 70, 7, "string at 20+5 is outside the object"),
        ),
    ],
)
def test_what_cannot_be_sized_is_undecoded(
    fragment: str, kept: int, undecoded: tuple[int, int | None, int | None, str]
) -> None:
    objects, found = _stops(fragment)
    assert objects == kept
    (entry,) = found
    offset, group, variation, reason = undecoded
    assert (entry.offset, entry.group, entry.variation) == (offset, group, variation)
    assert reason in entry.reason


def test_the_walk_stops_at_the_first_undecodable_header() -> None:
    # good g30v1, unknown g99v1, then another good g30v1 that is not reached
    fragment = "C0 81 00 00 " + ANALOG_42 + " 63 01 00 00 00 " + ANALOG_42
    response = parse_response(H(fragment))
    assert [o.value for o in response.objects] == [42]
    assert len(response.headers) == 1 and len(response.undecoded) == 1


def test_request_undecoded_too() -> None:
    # a read naming indexes (0x17 count 3) with only two index octets
    request = parse_request(H("C0 01 14 00 17 03 01 02"))
    assert request.headers == []
    assert request.undecoded == [Undecoded(2, 20, 0, "3 indexes need 3 octets, 2 remain")]


def test_encode_request_and_response() -> None:
    assert encode_request(AppControl.request(4), "READ", H("3C 01 06")) == H("C4 01 3C 01 06")
    assert encode_request(0xC0, FunctionCode.CONFIRM) == H("C0 00")
    # IIN as a 16-bit value: IIN1 is the low octet, IIN2 the high one
    iin = IIN.DEVICE_RESTART | IIN.OBJECT_UNKNOWN
    assert encode_response(AppControl(con=True, seq=1), "RESPONSE", iin) == H("E1 81 80 02")
    assert encode_response(0xC0, 0x82, 0, H(ANALOG_42)) == H("C0 82 00 00 " + ANALOG_42)


def test_iin_names_every_bit_of_both_octets() -> None:
    # IIN1 = 0xFF, IIN2 = 0xFF as they arrive after the function code: every bit, low first.
    response = parse_response(H("C0 81 FF FF"))
    assert response.iin.names == [
        "BROADCAST",
        "CLASS_1_EVENTS",
        "CLASS_2_EVENTS",
        "CLASS_3_EVENTS",
        "NEED_TIME",
        "LOCAL_CONTROL",
        "DEVICE_TROUBLE",
        "DEVICE_RESTART",
        "FUNC_NOT_SUPPORTED",
        "OBJECT_UNKNOWN",
        "PARAMETER_ERROR",
        "EVENT_BUFFER_OVERFLOW",
        "ALREADY_EXECUTING",
        "CONFIG_CORRUPT",
        "RESERVED_2",
        "RESERVED_1",
    ]
    # IIN2.0 alone (octets 00 01); the standard's own name for it is taken as an alias.
    assert parse_response(H("C0 81 00 01")).iin.names == ["FUNC_NOT_SUPPORTED"]
    assert IIN.from_names(["no_func_code_support"]) == IIN.from_octets(0x00, 0x01)


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: encode_request(0xC0, "RESPONSE"), "not a request"),
        (lambda: encode_request(0xC0, "NO_SUCH_FUNCTION"), "unknown function code name"),
        (lambda: encode_request(0x100, "READ"), "does not fit"),
        (lambda: encode_response(0xC0, "READ", 0), "not a response"),
        (lambda: encode_response(0xC0, "RESPONSE", 0x10000), "two octets"),
    ],
)
def test_fragment_encoders_refuse(call: object, reason: str) -> None:
    with pytest.raises(EncodeError, match=reason):
        call()  # type: ignore[operator]
