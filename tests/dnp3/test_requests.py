"""Request builders: each fragment laid out by hand from IEEE 1815-2012 (application control
C0 | seq for FIR|FIN, function code, object headers) and compared octet for octet."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gridwire.dnp3 import requests as rq
from gridwire.dnp3.app.fragments import parse_request
from gridwire.dnp3.app.headers import all_header, range_header
from gridwire.dnp3.errors import EncodeError
from gridwire.dnp3.objects.controls import crob
from gridwire.dnp3.objects.records import AnalogCommand

T = 1_700_000_000_000
TIME = "00 68 E5 CF 8B 01"  # T in 48 bits, low octet first
# CROB LATCH_ON: code 03, count 01, on 100 ms (64 00 00 00), off 100 ms, status 00
LATCH_ON = "03 01 64 00 00 00 64 00 00 00 00"

CASES: list[tuple[str, Callable[[], bytes], str]] = [
    # integrity: classes 1, 2, 3 (g60v2-4) then 0 (g60v1), all objects (0x06)
    ("integrity", lambda: rq.integrity_poll(0), "C0 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06"),
    ("class 0", lambda: rq.read_classes(5, [0]), "C5 01 3C 01 06"),
    ("classes 3 and 1", lambda: rq.read_classes(1, {3, 1}), "C1 01 3C 02 06 3C 04 06"),
    ("classes 0 and 2", lambda: rq.read_classes(2, [0, 2]), "C2 01 3C 03 06 3C 01 06"),
    ("range", lambda: rq.read_range(3, 30, 0, 0, 9), "C3 01 1E 00 00 00 09"),
    ("range 16-bit", lambda: rq.read_range(3, 30, 5, 0, 300), "C3 01 1E 05 01 00 00 2C 01"),
    ("all of g1v2", lambda: rq.read_all(4, 1, 2), "C4 01 01 02 06"),
    ("points", lambda: rq.read_points(7, 30, 0, [3, 7]), "C7 01 1E 00 17 02 03 07"),
    (
        "several headers",
        lambda: rq.read(6, all_header(1, 0), range_header(30, 1, 0, 9), all_header(60, 2)),
        "C6 01 01 00 06 1E 01 00 00 09 3C 02 06",
    ),
    # device attributes: g0v254 (all), set 0 by start-stop 0..0
    ("attributes", lambda: rq.read(0, range_header(0, 254, 0, 0)), "C0 01 00 FE 00 00 00"),
    # WRITE g50v1 count 1 (0x07 01), then the 48-bit time
    ("write time", lambda: rq.write_time(8, T), "C8 02 32 01 07 01 " + TIME),
    ("last recorded time", lambda: rq.write_last_recorded_time(9, T), "C9 02 32 03 07 01 " + TIME),
    # WRITE g80v1 start-stop 7..7, one packed octet 0: clears IIN1.7 DEVICE_RESTART
    ("clear restart", lambda: rq.clear_restart(10), "CA 02 50 01 00 07 07 00"),
    # DIRECT_OPERATE g12v1 0x28: count 0x0001, index 0x0000, then the CROB
    (
        "direct operate latch 0x28",
        lambda: rq.command(11, "DIRECT_OPERATE", crobs=[(0, crob("LATCH_ON"))], qualifier=0x28),
        "CB 05 0C 01 28 01 00 00 00 " + LATCH_ON,
    ),
    # the smallest prefix by default: 0x17, count 1, index 0
    (
        "select latch",
        lambda: rq.command(0, "SELECT", crobs=[(0, crob("LATCH_ON"))]),
        "C0 03 0C 01 17 01 00 " + LATCH_ON,
    ),
    (
        "operate two",
        lambda: rq.command(1, "OPERATE", crobs=[(0, crob(True)), (5, crob(False))]),
        "C1 04 0C 01 17 02 00 " + LATCH_ON + " 05 04 01 64 00 00 00 64 00 00 00 00",
    ),
    # an index above 255 needs the 2-octet prefix: 0x28 count 1, index 0x012C
    (
        "index 300",
        lambda: rq.command(2, "DIRECT_OPERATE_NR", crobs=[(300, crob("PULSE_ON", on_ms=1000))]),
        "C2 06 0C 01 28 01 00 2C 01 01 01 E8 03 00 00 64 00 00 00 00",
    ),
    # analog outputs: a whole number as g41v1 (i32), anything else as g41v3 (single)
    (
        "analogs",
        lambda: rq.command(12, "SELECT", analogs=[(0, 100), (1, 2.5)]),
        "CC 03 29 01 17 01 00 64 00 00 00 00 29 03 17 01 01 00 00 20 40 00",
    ),
    (
        "analog 16-bit",
        lambda: rq.command(13, "DIRECT_OPERATE", analogs=[(0, 100)], variation=2),
        "CD 05 29 02 17 01 00 64 00 00",
    ),
    (
        "analog double",
        lambda: rq.command(
            14, "OPERATE", analogs=[(2, AnalogCommand(1.5, "SUCCESS"))], variation=4
        ),
        "CE 04 29 04 17 01 02 00 00 00 00 00 00 F8 3F 00",
    ),
    (
        "crob and analog",
        lambda: rq.command(15, "DIRECT_OPERATE", crobs=[(1, crob("LATCH_OFF"))], analogs=[(3, -1)]),
        "CF 05 0C 01 17 01 01 04 01 64 00 00 00 64 00 00 00 00 29 01 17 01 03 FF FF FF FF 00",
    ),
    # freezes of every counter (g20v0, 0x06) and of a range
    ("immediate freeze", lambda: rq.freeze(0), "C0 07 14 00 06"),
    ("freeze no ack", lambda: rq.freeze(2, ack=False), "C2 08 14 00 06"),
    ("freeze and clear", lambda: rq.freeze(1, clear=True), "C1 09 14 00 06"),
    ("freeze and clear no ack", lambda: rq.freeze(3, clear=True, ack=False), "C3 0A 14 00 06"),
    (
        "freeze ranges",
        lambda: rq.freeze(4, ranges=[(0, 9), (20, 20)]),
        "C4 07 14 00 00 00 09 14 00 00 14 14",
    ),
    # FREEZE_AT_TIME: g50v2 (time, interval 60000 ms = 60 EA 00 00), then g20v0 all
    (
        "freeze at time",
        lambda: rq.freeze_at_time(4, T, 60000),
        "C4 0B 32 02 07 01 " + TIME + " 60 EA 00 00 14 00 06",
    ),
    ("cold restart", lambda: rq.cold_restart(5), "C5 0D"),
    ("warm restart", lambda: rq.warm_restart(6), "C6 0E"),
    ("delay measure", lambda: rq.delay_measure(7), "C7 17"),
    ("record current time", lambda: rq.record_current_time(8), "C8 18"),
    ("enable unsolicited", lambda: rq.enable_unsolicited(9), "C9 14 3C 02 06 3C 03 06 3C 04 06"),
    ("enable class 2", lambda: rq.enable_unsolicited(9, [2]), "C9 14 3C 03 06"),
    ("disable unsolicited", lambda: rq.disable_unsolicited(10, [3, 1]), "CA 15 3C 02 06 3C 04 06"),
    # ASSIGN_CLASS: class 2 (g60v3) to every binary input, class 3 (g60v4) to analogs 0..9
    (
        "assign class",
        lambda: rq.assign_class(11, [(2, [all_header(1)]), (3, [range_header(30, 0, 0, 9)])]),
        "CB 16 3C 03 06 01 00 06 3C 04 06 1E 00 00 00 09",
    ),
    ("confirm", lambda: rq.confirm(12), "CC 00"),
    # an unsolicited response's confirm sets UNS (0x10): FIR|FIN|UNS = 0xD0
    ("confirm unsolicited", lambda: rq.confirm(13, unsolicited=True), "DD 00"),
    ("any function", lambda: rq.request(14, "SAVE_CONFIG"), "CE 13"),
    (
        "raw body",
        lambda: rq.request(15, 0x02, bytes.fromhex("50 01 00 07 07 00")),
        "CF 02 50 01 00 07 07 00",
    ),
]


@pytest.mark.parametrize(
    ("build", "octets"), [(b, o) for _, b, o in CASES], ids=[n for n, _, _ in CASES]
)
def test_request_octets(build: Callable[[], bytes], octets: str) -> None:
    fragment = build()
    assert fragment == bytes.fromhex(octets)
    # and our own parser reads every header of it back
    assert parse_request(fragment).undecoded == []


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: rq.integrity_poll(16), "outside 0-15"),
        (lambda: rq.read(0), "at least one object header"),
        (lambda: rq.read_classes(0, []), "no class"),
        (lambda: rq.read_classes(0, [4]), "not 0, 1, 2 or 3"),
        (lambda: rq.command(0, "READ", crobs=[(0, crob(True))]), "not a command"),
        (lambda: rq.command(0, "SELECT"), "at least one control"),
        (lambda: rq.command(0, "SELECT", analogs=[(0, 1)], variation=5), "variations 1-4"),
        (lambda: rq.command(0, "SELECT", analogs=[(0, 40000)], variation=2), "cannot encode"),
        (lambda: rq.freeze(0, ranges=[]), "at least one range"),
        (lambda: rq.enable_unsolicited(0, [0]), "event class 1-3"),
        (lambda: rq.assign_class(0, []), "at least one assignment"),
        (lambda: rq.assign_class(0, [(1, [])]), "no points"),
        (lambda: rq.request(0, "RESPONSE"), "not a request"),
        (lambda: rq.write_time(0, -1), "cannot encode"),
    ],
)
def test_builders_refuse(call: Callable[[], bytes], reason: str) -> None:
    with pytest.raises(EncodeError, match=reason):
        call()


def test_analog_variation_choice() -> None:
    assert rq.analog_variation(7) == 1
    assert rq.analog_variation(7.0) == 3  # a float stays a float
    assert rq.analog_variation(2**40) == 3  # beyond 32 bits
    assert rq.analog_variation(True) == 3
