"""encode_objects: the qualifier it chooses and the octets it lays out, derived by hand from
IEEE 1815-2012 Annex A, and what it refuses."""

from __future__ import annotations

import pytest

from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.controls import crob
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.records import (
    AnalogCommand,
    Attribute,
    AttributeEntry,
    CommandEvent,
    FileCommand,
    FileTransport,
    TimeAndInterval,
)

H = bytes.fromhex
T = 1_700_000_000_000
TIME = "00 68 E5 CF 8B 01"  # T, 48 bits, low octet first
EXT_PAIRS = " ".join(f"{v:02X} 00" for v in range(128))  # (variation 00..7F, properties 0)


def _pairs(kind: str, count: int) -> Attribute:
    """A LIST or EXTLIST of ``count`` (variation, properties 0) pairs, variations 0, 1, 2..."""
    return Attribute(kind, [AttributeEntry(v, 0) for v in range(count)])


@pytest.mark.parametrize(
    ("args", "octets"),
    [
        # contiguous static points: start-stop 0x00 0..1; flags ONLINE (default) and values
        ((30, 1, [Item(0, 42), Item(1, -7)]), "1E 01 00 00 01 01 2A 00 00 00 01 F9 FF FF FF"),
        # indexes above 255: start-stop 0x01 (0x012C..0x012D)
        ((30, 2, [Item(300, 1), Item(301, 2)]), "1E 02 01 2C 01 2D 01 01 01 00 01 02 00"),
        # sparse static points: index prefix 0x17
        ((30, 4, [Item(1, 5), Item(5, 6)]), "1E 04 17 02 01 05 00 05 06 00"),
        # a binary's state goes in bit 7 of the flags: 0x01 | 0x80; flags given raw (0x21)
        ((1, 2, [Item(3, True), Item(4, False, 0x21)]), "01 02 00 03 04 81 21"),
        # a double-bit state by name or number in bits 6-7: DETERMINED_ON = 2 -> 0x81
        ((3, 2, [Item(0, "DETERMINED_ON"), Item(1, 1)]), "03 02 00 00 01 81 41"),
        # packed bits, LSB first: 10 points, on at 0, 2 and 8 -> 05 01
        ((1, 1, [Item(i, i in (0, 2, 8)) for i in range(10)]), "01 01 00 00 09 05 01"),
        # packed double-bit: 2, 0, 3 -> 0b00110010
        ((3, 1, [Item(0, 2), Item(1, 0), Item(2, "INDETERMINATE")]), "03 01 00 00 02 32"),
        # events are index-prefixed even when contiguous: 0x17
        ((32, 1, [Item(0, 1), Item(1, 2)]), "20 01 17 02 00 01 01 00 00 00 01 01 02 00 00 00"),
        # an event index above 255: 0x28, 2-octet count and indexes
        ((2, 2, [Item(300, True, time_ms=T)]), "02 02 28 01 00 2C 01 81 " + TIME),
        # counter, frozen counter with time
        ((21, 5, [Item(0, 10, time_ms=T)]), "15 05 00 00 00 01 0A 00 00 00 " + TIME),
        # CROB: control code, count, on, off, status
        ((12, 1, [Item(0, crob("LATCH_ON"))]), "0C 01 17 01 00 03 01 64 00 00 00 64 00 00 00 00"),
        (
            (12, 1, [Item(7, crob("TRIP_PULSE_ON", count=2, on_ms=500, off_ms=0))]),
            "0C 01 17 01 07 81 02 F4 01 00 00 00 00 00 00 00",
        ),
        # analog output commands, value then status
        ((41, 1, [Item(3, AnalogCommand(1000, "SUCCESS"))]), "29 01 17 01 03 E8 03 00 00 00"),
        ((41, 2, [Item(3, AnalogCommand(-1000, "SUCCESS"))]), "29 02 17 01 03 18 FC 00"),
        ((41, 3, [Item(3, AnalogCommand(1.5, "LOCAL"))]), "29 03 17 01 03 00 00 C0 3F 07"),
        (
            (41, 4, [Item(3, AnalogCommand(1.5, "OUT_OF_RANGE"))]),
            "29 04 17 01 03 00 00 00 00 00 00 F8 3F 0C",
        ),
        # analog output command event: status first
        ((43, 2, [Item(3, AnalogCommand(1000, "TIMEOUT"))]), "2B 02 17 01 03 01 E8 03"),
        ((13, 1, [Item(2, CommandEvent(True, "NO_SELECT"))]), "0D 01 17 01 02 82"),
        # times and delays: count qualifier, no index
        ((50, 1, [Item(None, T)]), "32 01 07 01 " + TIME),
        ((50, 3, [Item(None, T)]), "32 03 07 01 " + TIME),
        (
            (50, 2, [Item(None, TimeAndInterval(T, 60000, "MILLISECONDS"))]),
            "32 02 07 01 " + TIME + " 60 EA 00 00",
        ),
        (
            (50, 4, [Item(0, TimeAndInterval(T, 60, "MINUTES"))]),
            "32 04 00 00 00 " + TIME + " 3C 00 00 00 03",
        ),
        ((51, 2, [Item(None, T)]), "33 02 07 01 " + TIME),
        ((52, 1, [Item(None, 5)]), "34 01 07 01 05 00"),
        ((52, 2, [Item(None, 300)]), "34 02 07 01 2C 01"),
        # IIN1.7 written to 0: start-stop 7..7, one packed octet
        ((80, 1, [Item(7, False)]), "50 01 00 07 07 00"),
        # octet strings: the variation is the length
        ((110, 3, [Item(0, b"abc")]), "6E 03 00 00 00 61 62 63"),
        ((111, 2, [Item(5, b"\x01\x02")]), "6F 02 17 01 05 01 02"),
        # device attributes: smallest UINT (1 octet), VSTR, FLT as a single when exact
        ((0, 240, [Item(0, Attribute("UINT", 16))]), "00 F0 00 00 00 02 01 10"),
        ((0, 240, [Item(0, Attribute("UINT", 2048))]), "00 F0 00 00 00 02 02 00 08"),
        ((0, 209, [Item(0, Attribute("INT", -1))]), "00 D1 00 00 00 03 01 FF"),
        ((0, 252, [Item(0, Attribute("VSTR", "ABC"))]), "00 FC 00 00 00 01 03 41 42 43"),
        ((0, 203, [Item(0, Attribute("FLT", 1.5))]), "00 CB 00 00 00 04 04 00 00 C0 3F"),
        # 0.1 is not exact as a single: 8 octets, 0x3FB999999999999A
        (
            (0, 203, [Item(0, Attribute("FLT", 0.1))]),
            "00 CB 00 00 00 04 08 9A 99 99 99 99 99 B9 3F",
        ),
        ((0, 198, [Item(0, Attribute("TIME", T))]), "00 C6 00 00 00 07 06 " + TIME),
        (
            (
                0,
                255,
                [Item(0, Attribute("LIST", [AttributeEntry(240, 0), AttributeEntry(250, 1)]))],
            ),
            "00 FF 00 00 00 FE 04 F0 00 FA 01",
        ),
        # octet string (type 05) and bit string (type 06): the octets as given, length 02
        ((0, 200, [Item(0, Attribute("OSTR", b"\xde\xad"))]), "00 C8 00 00 00 05 02 DE AD"),
        ((0, 200, [Item(0, Attribute("BSTR", b"\xde\xad"))]), "00 C8 00 00 00 06 02 DE AD"),
        # extended list (type FF, IEEE 1815-2012 Table 11-3): its length octet counts from 256,
        # so 128 pairs (256 octets) give 256 - 256 = 00 and 129 pairs (258 octets) give 02;
        # the 129th pair is (variation 0x80, properties 0)
        (
            (0, 255, [Item(0, _pairs("EXTLIST", 128))]),
            "00 FF 00 00 00 FF 00 " + EXT_PAIRS,
        ),
        (
            (0, 255, [Item(0, _pairs("EXTLIST", 129))]),
            "00 FF 00 00 00 FF 02 " + EXT_PAIRS + " 80 00",
        ),
        # file objects: free format 0x5B, 2-octet size before each
        (
            (70, 3, [Item(None, FileCommand("a.txt", T, 0o777, 0, 0, 1, 1024, 7))]),
            "46 03 5B 01 1F 00 1A 00 05 00 " + TIME + " FF 01 00 00 00 00 00 00 00 00 01 00 00 04"
            " 07 00 61 2E 74 78 74",
        ),
        (
            (70, 5, [Item(None, FileTransport(1, 2, True, b"AB"))]),
            "46 05 5B 01 0A 00 01 00 00 00 02 00 00 80 41 42",
        ),
        ((70, 8, [Item(None, "/a/bc")]), "46 08 5B 01 05 00 2F 61 2F 62 63"),
    ],
)
def test_encoded_octets(args: tuple[int, int, list[Item]], octets: str) -> None:
    assert encode_objects(*args) == H(octets)


@pytest.mark.parametrize(
    ("qualifier", "octets"),
    [
        (0x28, "0C 01 28 01 00 00 00 03 01 64 00 00 00 64 00 00 00 00"),
        (0x39, "0C 01 39 01 00 00 00 00 00 00 00 03 01 64 00 00 00 64 00 00 00 00"),
        (0x5B, "0C 01 5B 01 0B 00 03 01 64 00 00 00 64 00 00 00 00"),
    ],
)
def test_forced_qualifier(qualifier: int, octets: str) -> None:
    assert encode_objects(12, 1, [Item(0, crob("LATCH_ON"))], qualifier) == H(octets)


def test_forced_start_stop_and_count() -> None:
    assert encode_objects(32, 2, [Item(4, 1)], 0x00) == H("20 02 00 04 04 01 01 00")
    assert encode_objects(30, 2, [Item(None, 1)], 0x07) == H("1E 02 07 01 01 01 00")
    assert encode_objects(50, 1, [Item(None, T)], 0x08) == H("32 01 08 01 00 " + TIME)


def test_relative_time_after_its_cto() -> None:
    cto = encode_objects(51, 1, [Item(None, T)])
    events = encode_objects(2, 3, [Item(1, True, time_ms=T + 1000)], cto_ms=T)
    assert cto + events == H("33 01 07 01 " + TIME + " 02 03 17 01 01 81 E8 03")


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: encode_objects(99, 1, [Item(0, 1)]), "unknown object g99v1"),
        (lambda: encode_objects(30, 1, []), "at least one object"),
        (lambda: encode_objects(30, 1, [Item(0, 1, 0x100)]), "flags 256"),
        (lambda: encode_objects(30, 2, [Item(0, 40000)]), "cannot encode"),
        (lambda: encode_objects(30, 1, [Item(None, 1)]), "need indexes"),
        (lambda: encode_objects(30, 1, [Item(0, 1), Item(2, 1)], 0x00), "contiguous"),
        (lambda: encode_objects(1, 1, [Item(0, True), Item(2, True)]), "contiguous"),
        (lambda: encode_objects(30, 1, [Item(300, 1)], 0x17), "cannot encode"),
        (lambda: encode_objects(30, 1, [Item(0, 1)], 0x06), "carries no objects"),
        (lambda: encode_objects(2, 2, [Item(0, True)]), "cannot encode"),  # no time given
        (lambda: encode_objects(2, 2, [Item(0, True, time_ms=1 << 48)]), "cannot encode"),
        (lambda: encode_objects(2, 3, [Item(0, True, time_ms=T)]), "needs cto_ms"),
        (lambda: encode_objects(2, 3, [Item(0, True, time_ms=T + 70000)], cto_ms=T), "encode"),
        (lambda: encode_objects(3, 2, [Item(0, "OPEN")]), "not a double-bit state"),
        (lambda: encode_objects(12, 1, [Item(0, AnalogCommand(1, "SUCCESS"))]), "cannot encode"),
        (lambda: encode_objects(12, 1, [Item(0, crob("LATCH_ON", status="NOPE"))]), "NOPE"),
        (lambda: encode_objects(50, 4, [Item(0, TimeAndInterval(T, 1, "EONS"))]), "EONS"),
        (lambda: encode_objects(110, 3, [Item(0, b"ab")]), "2 octets given"),
        (lambda: encode_objects(60, 2, [Item(0, 1)]), "cannot take"),
        (lambda: encode_objects(70, 5, [Item(None, "text")]), "FileTransport"),
        (lambda: encode_objects(70, 8, [Item(None, 5)]), "needs str"),
        (lambda: encode_objects(0, 240, [Item(0, 5)]), "Attribute value"),
        (lambda: encode_objects(0, 240, [Item(0, Attribute("UINT", "x"))]), "integer"),
        (lambda: encode_objects(0, 240, [Item(0, Attribute("NUMBER", 1))]), "data type"),
        (lambda: encode_objects(0, 252, [Item(0, Attribute("VSTR", "x" * 256))]), "256 octets"),
        # an extended list holds 256..511 octets (length octet + 256): one pair (2 octets) is
        # too short, 256 pairs (512) too long; a plain LIST stops at 255 octets
        (lambda: encode_objects(0, 255, [Item(0, _pairs("EXTLIST", 1))]), "EXTLIST .* 2 octets"),
        (
            lambda: encode_objects(0, 255, [Item(0, _pairs("EXTLIST", 256))]),
            "EXTLIST .* 512 octets",
        ),
        (lambda: encode_objects(0, 255, [Item(0, _pairs("LIST", 128))]), "LIST .* 256 octets"),
        (lambda: encode_objects(80, 1, [Item(7, False)], 0x17), "cannot take"),
    ],
)
def test_encode_refuses(call: object, reason: str) -> None:
    with pytest.raises(EncodeError, match=reason):
        call()  # type: ignore[operator]


def test_crob_helper() -> None:
    assert crob(True).code == 0x03 and crob(False).code == 0x04
    assert crob("pulse_on").op == "PULSE_ON"
    assert crob(0x61).op == "CLOSE_PULSE_ON|CLEAR"  # a raw code octet: 0x41 | CLEAR 0x20
    with pytest.raises(EncodeError, match="unknown binary output operation"):
        crob("WIGGLE")
