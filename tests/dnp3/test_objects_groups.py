"""Responses holding objects of every group and variation of the library, decoded from octets
laid out by hand from IEEE 1815-2012 Annex A (object definitions): little-endian fields, a
flags octet first where the variation has one, 48-bit times in ms since 1970.

Times use T = 1 700 000 000 000 ms (2023-11-14 22:13:20 UTC) = 0x018BCFE56800, on the wire
low octet first: 00 68 E5 CF 8B 01.
"""

from __future__ import annotations

from typing import Any

import pytest

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.objects.records import (
    AnalogCommand,
    Attribute,
    AttributeEntry,
    CommandEvent,
    Crob,
    FileAuthentication,
    FileCommand,
    FileCommandStatus,
    FileDescriptor,
    FileTransport,
    FileTransportStatus,
    TimeAndInterval,
)
from gridwire.dnp3.objects.table import VARIATIONS, Layout

T = 1_700_000_000_000
TIME = "00 68 E5 CF 8B 01"
CTO = "33 01 07 01 " + TIME  # g51v1, count 1: synchronized CTO at T
ON = ["ONLINE"]

Expected = tuple[Any, ...]


def E(
    type_: str | None,
    group: int,
    variation: int,
    index: int | None,
    value: object,
    flags: list[str] | None = None,
    time_ms: int | None = None,
    synchronized: bool | None = None,
    event: bool = False,
) -> Expected:
    return (type_, group, variation, index, value, flags, time_ms, synchronized, event)


def decoded(body: str) -> list[Expected]:
    response = parse_response(bytes.fromhex("C0 81 00 00 " + body))
    assert response.undecoded == []
    return [
        (
            o.type,
            o.group,
            o.variation,
            o.index,
            o.value,
            o.flags,
            o.time_ms,
            o.synchronized,
            o.event,
        )
        for o in response.objects
    ]


CASES: list[tuple[str, str, list[Expected]]] = [
    # --- g0 device attributes: data type, length, value; the range is the attribute set (0)
    # g0v240 (max transmit fragment size): UINT (2), 2 octets, 0x0800
    ("g0v240 uint", "00 F0 00 00 00 02 02 00 08", [E(None, 0, 240, 0, Attribute("UINT", 2048))]),
    # g0v255 list of attribute variations: type 254, 4 octets: (240, 0), (250, 1 = writable)
    (
        "g0v255 list",
        "00 FF 00 00 00 FE 04 F0 00 FA 01",
        [E(None, 0, 255, 0, Attribute("LIST", [AttributeEntry(240, 0), AttributeEntry(250, 1)]))],
    ),
    # g0v252 manufacturer's name: VSTR (1), 3 octets "ABC"
    (
        "g0v252 vstr",
        "00 FC 00 00 00 01 03 41 42 43",
        [E(None, 0, 252, 0, Attribute("VSTR", "ABC"))],
    ),
    # g0v209: INT (3), 1 octet 0xFF = -1
    ("g0v209 int", "00 D1 00 00 00 03 01 FF", [E(None, 0, 209, 0, Attribute("INT", -1))]),
    # g0v203 altitude: FLT (4), 4 octets 0x3FC00000 = 1.5
    ("g0v203 flt", "00 CB 00 00 00 04 04 00 00 C0 3F", [E(None, 0, 203, 0, Attribute("FLT", 1.5))]),
    # g0v198 configuration build date: TIME (7), 6 octets
    ("g0v198 time", "00 C6 00 00 00 07 06 " + TIME, [E(None, 0, 198, 0, Attribute("TIME", T))]),
    # g0v200 configuration digest: OSTR (5), 2 octets
    (
        "g0v200 ostr",
        "00 C8 00 00 00 05 02 DE AD",
        [E(None, 0, 200, 0, Attribute("OSTR", b"\xde\xad"))],
    ),
    # g0v240 with a 1-octet index prefix (0x17): set 0, UINT of 1 octet = 16
    ("g0 prefixed", "00 F0 17 01 00 02 01 10", [E(None, 0, 240, 0, Attribute("UINT", 16))]),
    # --- g1 binary inputs: packed bits LSB first; with flags, state in bit 7
    # 0..9: 0x05 -> indexes 0 and 2 on; 0x01 -> index 8 on
    (
        "g1v1",
        "01 01 00 00 09 05 01",
        [E("bi", 1, 1, i, i in (0, 2, 8)) for i in range(10)],
    ),
    # 3..5: 0x81 on+ONLINE, 0x01 off+ONLINE, 0xA1 on+ONLINE+CHATTER_FILTER
    (
        "g1v2",
        "01 02 00 03 05 81 01 A1",
        [
            E("bi", 1, 2, 3, True, ON),
            E("bi", 1, 2, 4, False, ON),
            E("bi", 1, 2, 5, True, ["ONLINE", "CHATTER_FILTER"]),
        ],
    ),
    # --- g2 binary input events
    ("g2v1", "02 01 17 01 07 80", [E("bi", 2, 1, 7, True, [], event=True)]),
    # 0x28: 2-octet count 1, index 0x012C = 300
    ("g2v2", "02 02 28 01 00 2C 01 81 " + TIME, [E("bi", 2, 2, 300, True, ON, T, event=True)]),
    # CTO at T, then relative times 0x03E8 = 1000 and 0x07D0 = 2000 ms after it
    (
        "g2v3 after g51v1",
        CTO + " 02 03 17 02 01 81 E8 03 02 01 D0 07",
        [
            E(None, 51, 1, None, T, None, T, True),
            E("bi", 2, 3, 1, True, ON, T + 1000, True, True),
            E("bi", 2, 3, 2, False, ON, T + 2000, True, True),
        ],
    ),
    (
        "g2v3 after g51v2",
        "33 02 07 01 " + TIME + " 02 03 17 01 01 81 0A 00",
        [
            E(None, 51, 2, None, T, None, T, False),
            E("bi", 2, 3, 1, True, ON, T + 10, False, True),
        ],
    ),
    # without a CTO the relative time cannot be placed: time and synchronized are None
    ("g2v3 without CTO", "02 03 17 01 01 81 0A 00", [E("bi", 2, 3, 1, True, ON, None, None, True)]),
    # --- g3 double-bit inputs: two bits each LSB first; with flags, state in bits 6-7
    # 0xE4 = 11 10 01 00 -> states 0, 1, 2, 3; then 0x01 -> 1
    ("g3v1", "03 01 00 00 04 E4 01", [E("dbi", 3, 1, i, s) for i, s in enumerate([0, 1, 2, 3, 1])]),
    # 0x81 = 10|000001: DETERMINED_ON (2), ONLINE; 0x61 = 01|100001: DETERMINED_OFF, ONLINE,
    # CHATTER_FILTER
    (
        "g3v2",
        "03 02 00 00 01 81 61",
        [E("dbi", 3, 2, 0, 2, ON), E("dbi", 3, 2, 1, 1, ["ONLINE", "CHATTER_FILTER"])],
    ),
    ("g4v1", "04 01 17 01 02 C1", [E("dbi", 4, 1, 2, 3, ON, event=True)]),
    ("g4v2", "04 02 17 01 02 41 " + TIME, [E("dbi", 4, 2, 2, 1, ON, T, event=True)]),
    (
        "g4v3",
        CTO + " 04 03 17 01 02 81 05 00",
        [E(None, 51, 1, None, T, None, T, True), E("dbi", 4, 3, 2, 2, ON, T + 5, True, True)],
    ),
    # --- g10 binary outputs, g11 their events
    ("g10v1", "0A 01 00 00 02 06", [E("bo", 10, 1, i, i > 0) for i in range(3)]),
    # 0xE1: state on, ONLINE, and both reserved bits 5 and 6
    ("g10v2", "0A 02 00 00 00 E1", [E("bo", 10, 2, 0, True, ["ONLINE", "RESERVED", "RESERVED"])]),
    ("g11v1", "0B 01 17 01 04 01", [E("bo", 11, 1, 4, False, ON, event=True)]),
    ("g11v2", "0B 02 17 01 04 81 " + TIME, [E("bo", 11, 2, 4, True, ON, T, event=True)]),
    # --- g12 commands: code, count, on ms (u32), off ms (u32), status
    # 0x41 CLOSE|PULSE_ON, 1 time, on 0x01F4 = 500 ms, off 0, status 4 NOT_SUPPORTED
    (
        "g12v1",
        "0C 01 17 01 00 41 01 F4 01 00 00 00 00 00 00 04",
        [E(None, 12, 1, 0, Crob(0x41, "CLOSE_PULSE_ON", 1, 500, 0, "NOT_SUPPORTED"))],
    ),
    # pattern control block, same layout: 0x81 TRIP|PULSE_ON twice, 100 on, 200 off
    (
        "g12v2",
        "0C 02 17 01 00 81 02 64 00 00 00 C8 00 00 00 00",
        [E(None, 12, 2, 0, Crob(0x81, "TRIP_PULSE_ON", 2, 100, 200, "SUCCESS"))],
    ),
    ("g12v3", "0C 03 00 00 03 0A", [E(None, 12, 3, i, i in (1, 3)) for i in range(4)]),
    # --- g13 binary output command events: bit 7 commanded state, bits 0-6 status
    (
        "g13v1",
        "0D 01 17 01 02 82",
        [E(None, 13, 1, 2, CommandEvent(True, "NO_SELECT"), event=True)],
    ),
    (
        "g13v2",
        "0D 02 17 01 02 04 " + TIME,
        [E(None, 13, 2, 2, CommandEvent(False, "NOT_SUPPORTED"), None, T, event=True)],
    ),
    # --- g20 counters
    ("g20v1", "14 01 00 00 00 01 FF FF FF FF", [E("counter", 20, 1, 0, 4294967295, ON)]),
    # 0x41: ONLINE and DISCONTINUITY; 0x1234
    (
        "g20v2",
        "14 02 00 01 01 41 34 12",
        [E("counter", 20, 2, 1, 4660, ["ONLINE", "DISCONTINUITY"])],
    ),
    ("g20v5", "14 05 00 02 02 78 56 34 12", [E("counter", 20, 5, 2, 0x12345678)]),
    ("g20v6", "14 06 00 02 02 34 12", [E("counter", 20, 6, 2, 4660)]),
    # --- g21 frozen counters; 0x21: ONLINE and ROLLOVER, 0x81: ONLINE and RESERVED
    ("g21v1", "15 01 00 00 00 21 0A 00 00 00", [E("frozen", 21, 1, 0, 10, ["ONLINE", "ROLLOVER"])]),
    ("g21v2", "15 02 00 00 00 81 0A 00", [E("frozen", 21, 2, 0, 10, ["ONLINE", "RESERVED"])]),
    ("g21v5", "15 05 00 00 00 01 0A 00 00 00 " + TIME, [E("frozen", 21, 5, 0, 10, ON, T)]),
    ("g21v6", "15 06 00 00 00 01 0A 00 " + TIME, [E("frozen", 21, 6, 0, 10, ON, T)]),
    ("g21v9", "15 09 00 00 00 0A 00 00 00", [E("frozen", 21, 9, 0, 10)]),
    ("g21v10", "15 0A 00 00 00 0A 00", [E("frozen", 21, 10, 0, 10)]),
    # --- g22 counter events (g23 frozen counter events: derived below)
    ("g22v1", "16 01 17 01 03 01 0B 00 00 00", [E("counter", 22, 1, 3, 11, ON, event=True)]),
    ("g22v2", "16 02 17 01 03 01 0B 00", [E("counter", 22, 2, 3, 11, ON, event=True)]),
    (
        "g22v5",
        "16 05 17 01 03 01 0B 00 00 00 " + TIME,
        [E("counter", 22, 5, 3, 11, ON, T, event=True)],
    ),
    ("g22v6", "16 06 17 01 03 01 0B 00 " + TIME, [E("counter", 22, 6, 3, 11, ON, T, event=True)]),
    # --- g30 analog inputs: 0x21 ONLINE+OVER_RANGE, 0x41 ONLINE+REFERENCE_ERR
    ("g30v1", "1E 01 00 00 00 01 2A 00 00 00", [E("ai", 30, 1, 0, 42, ON)]),
    ("g30v2", "1E 02 00 00 00 21 FE FF", [E("ai", 30, 2, 0, -2, ["ONLINE", "OVER_RANGE"])]),
    ("g30v3", "1E 03 00 00 00 D6 FF FF FF", [E("ai", 30, 3, 0, -42)]),
    ("g30v4", "1E 04 00 00 00 FF 7F", [E("ai", 30, 4, 0, 32767)]),
    # 0x3FC00000 = 1.5 (single); 0x3FF8000000000000 = 1.5 (double)
    (
        "g30v5",
        "1E 05 00 00 00 41 00 00 C0 3F",
        [E("ai", 30, 5, 0, 1.5, ["ONLINE", "REFERENCE_ERR"])],
    ),
    ("g30v6", "1E 06 00 00 00 01 00 00 00 00 00 00 F8 3F", [E("ai", 30, 6, 0, 1.5, ON)]),
    # --- g31 frozen analog inputs (type frozen_ai)
    ("g31v1", "1F 01 00 00 00 01 2A 00 00 00", [E("frozen_ai", 31, 1, 0, 42, ON)]),
    ("g31v2", "1F 02 00 00 00 01 2A 00", [E("frozen_ai", 31, 2, 0, 42, ON)]),
    ("g31v3", "1F 03 00 00 00 01 2A 00 00 00 " + TIME, [E("frozen_ai", 31, 3, 0, 42, ON, T)]),
    ("g31v4", "1F 04 00 00 00 01 2A 00 " + TIME, [E("frozen_ai", 31, 4, 0, 42, ON, T)]),
    ("g31v5", "1F 05 00 00 00 2A 00 00 00", [E("frozen_ai", 31, 5, 0, 42)]),
    ("g31v6", "1F 06 00 00 00 2A 00", [E("frozen_ai", 31, 6, 0, 42)]),
    ("g31v7", "1F 07 00 00 00 01 00 00 C0 3F", [E("frozen_ai", 31, 7, 0, 1.5, ON)]),
    ("g31v8", "1F 08 00 00 00 01 00 00 00 00 00 00 F8 3F", [E("frozen_ai", 31, 8, 0, 1.5, ON)]),
    # --- g32 analog input events
    ("g32v1", "20 01 17 01 09 01 2A 00 00 00", [E("ai", 32, 1, 9, 42, ON, event=True)]),
    ("g32v2", "20 02 17 01 09 01 2A 00", [E("ai", 32, 2, 9, 42, ON, event=True)]),
    ("g32v3", "20 03 17 01 09 01 2A 00 00 00 " + TIME, [E("ai", 32, 3, 9, 42, ON, T, event=True)]),
    ("g32v4", "20 04 17 01 09 01 2A 00 " + TIME, [E("ai", 32, 4, 9, 42, ON, T, event=True)]),
    ("g32v5", "20 05 17 01 09 01 00 00 C0 3F", [E("ai", 32, 5, 9, 1.5, ON, event=True)]),
    (
        "g32v6",
        "20 06 17 01 09 01 00 00 00 00 00 00 F8 3F",
        [E("ai", 32, 6, 9, 1.5, ON, event=True)],
    ),
    ("g32v7", "20 07 17 01 09 01 00 00 C0 3F " + TIME, [E("ai", 32, 7, 9, 1.5, ON, T, event=True)]),
    (
        "g32v8",
        "20 08 17 01 09 01 00 00 00 00 00 00 F8 3F " + TIME,
        [E("ai", 32, 8, 9, 1.5, ON, T, event=True)],
    ),
    # --- g34 deadbands (not a point's value); 0x41200000 = 10.0
    ("g34v1", "22 01 00 00 00 0A 00", [E(None, 34, 1, 0, 10)]),
    ("g34v2", "22 02 00 00 00 0A 00 00 00", [E(None, 34, 2, 0, 10)]),
    ("g34v3", "22 03 00 00 00 00 00 20 41", [E(None, 34, 3, 0, 10.0)]),
    # --- g40 analog output status
    ("g40v1", "28 01 00 00 00 01 2A 00 00 00", [E("ao", 40, 1, 0, 42, ON)]),
    ("g40v2", "28 02 00 00 00 01 2A 00", [E("ao", 40, 2, 0, 42, ON)]),
    ("g40v3", "28 03 00 00 00 01 00 00 C0 3F", [E("ao", 40, 3, 0, 1.5, ON)]),
    ("g40v4", "28 04 00 00 00 01 00 00 00 00 00 00 F8 3F", [E("ao", 40, 4, 0, 1.5, ON)]),
    # --- g41 analog output commands: value then status
    ("g41v1", "29 01 17 01 03 E8 03 00 00 00", [E(None, 41, 1, 3, AnalogCommand(1000, "SUCCESS"))]),
    # 0xFC18 = -1000
    ("g41v2", "29 02 17 01 03 18 FC 00", [E(None, 41, 2, 3, AnalogCommand(-1000, "SUCCESS"))]),
    ("g41v3", "29 03 17 01 03 00 00 C0 3F 07", [E(None, 41, 3, 3, AnalogCommand(1.5, "LOCAL"))]),
    (
        "g41v4",
        "29 04 17 01 03 00 00 00 00 00 00 F8 3F 0C",
        [E(None, 41, 4, 3, AnalogCommand(1.5, "OUT_OF_RANGE"))],
    ),
    # --- g42 analog output events
    ("g42v1", "2A 01 17 01 01 01 2A 00 00 00", [E("ao", 42, 1, 1, 42, ON, event=True)]),
    ("g42v2", "2A 02 17 01 01 01 2A 00", [E("ao", 42, 2, 1, 42, ON, event=True)]),
    ("g42v3", "2A 03 17 01 01 01 2A 00 00 00 " + TIME, [E("ao", 42, 3, 1, 42, ON, T, event=True)]),
    ("g42v4", "2A 04 17 01 01 01 2A 00 " + TIME, [E("ao", 42, 4, 1, 42, ON, T, event=True)]),
    ("g42v5", "2A 05 17 01 01 01 00 00 C0 3F", [E("ao", 42, 5, 1, 1.5, ON, event=True)]),
    (
        "g42v6",
        "2A 06 17 01 01 01 00 00 00 00 00 00 F8 3F",
        [E("ao", 42, 6, 1, 1.5, ON, event=True)],
    ),
    ("g42v7", "2A 07 17 01 01 01 00 00 C0 3F " + TIME, [E("ao", 42, 7, 1, 1.5, ON, T, event=True)]),
    (
        "g42v8",
        "2A 08 17 01 01 01 00 00 00 00 00 00 F8 3F " + TIME,
        [E("ao", 42, 8, 1, 1.5, ON, T, event=True)],
    ),
    # --- g43 analog output command events: status first, then the value
    (
        "g43v1",
        "2B 01 17 01 03 00 E8 03 00 00",
        [E(None, 43, 1, 3, AnalogCommand(1000, "SUCCESS"), event=True)],
    ),
    (
        "g43v2",
        "2B 02 17 01 03 01 E8 03",
        [E(None, 43, 2, 3, AnalogCommand(1000, "TIMEOUT"), event=True)],
    ),
    (
        "g43v3",
        "2B 03 17 01 03 00 E8 03 00 00 " + TIME,
        [E(None, 43, 3, 3, AnalogCommand(1000, "SUCCESS"), None, T, event=True)],
    ),
    (
        "g43v4",
        "2B 04 17 01 03 00 E8 03 " + TIME,
        [E(None, 43, 4, 3, AnalogCommand(1000, "SUCCESS"), None, T, event=True)],
    ),
    (
        "g43v5",
        "2B 05 17 01 03 00 00 00 C0 3F",
        [E(None, 43, 5, 3, AnalogCommand(1.5, "SUCCESS"), event=True)],
    ),
    (
        "g43v6",
        "2B 06 17 01 03 00 00 00 00 00 00 00 F8 3F",
        [E(None, 43, 6, 3, AnalogCommand(1.5, "SUCCESS"), event=True)],
    ),
    (
        "g43v7",
        "2B 07 17 01 03 00 00 00 C0 3F " + TIME,
        [E(None, 43, 7, 3, AnalogCommand(1.5, "SUCCESS"), None, T, event=True)],
    ),
    (
        "g43v8",
        "2B 08 17 01 03 00 00 00 00 00 00 00 F8 3F " + TIME,
        [E(None, 43, 8, 3, AnalogCommand(1.5, "SUCCESS"), None, T, event=True)],
    ),
    # --- g50 times (count qualifier: no index), g51 CTO, g52 delays
    ("g50v1", "32 01 07 01 " + TIME, [E(None, 50, 1, None, T, None, T)]),
    # interval 0x0000EA60 = 60000 ms
    (
        "g50v2",
        "32 02 07 01 " + TIME + " 60 EA 00 00",
        [E(None, 50, 2, None, TimeAndInterval(T, 60000, "MILLISECONDS"), None, T)],
    ),
    ("g50v3", "32 03 07 01 " + TIME, [E(None, 50, 3, None, T, None, T)]),
    # indexed (start-stop 0..0): interval 60, units 3 = MINUTES
    (
        "g50v4",
        "32 04 00 00 00 " + TIME + " 3C 00 00 00 03",
        [E(None, 50, 4, 0, TimeAndInterval(T, 60, "MINUTES"), None, T)],
    ),
    ("g51v1", "33 01 07 01 " + TIME, [E(None, 51, 1, None, T, None, T, True)]),
    ("g51v2", "33 02 07 01 " + TIME, [E(None, 51, 2, None, T, None, T, False)]),
    ("g52v1", "34 01 07 01 05 00", [E(None, 52, 1, None, 5)]),
    ("g52v2", "34 02 07 01 2C 01", [E(None, 52, 2, None, 300)]),
    # --- g70 file objects, free format (0x5B): 2-octet size before each object
    # user name offset 12, size 4; password offset 16, size 3; key 0xDEADCAFE; "root" "foo"
    (
        "g70v2",
        "46 02 5B 01 13 00 0C 00 04 00 10 00 03 00 FE CA AD DE 72 6F 6F 74 66 6F 6F",
        [E(None, 70, 2, None, FileAuthentication("root", "foo", 0xDEADCAFE))],
    ),
    # name offset 26 (0x1A), size 5; created T; permissions 0x01FF; key 0; size 0; mode 1
    # (read); max block 0x0400; request 7; "a.txt"
    (
        "g70v3",
        "46 03 5B 01 1F 00 1A 00 05 00 " + TIME + " FF 01 00 00 00 00 00 00 00 00 01 00 00 04"
        " 07 00 61 2E 74 78 74",
        [E(None, 70, 3, None, FileCommand("a.txt", T, 0o777, 0, 0, 1, 1024, 7))],
    ),
    # handle 1, size 0x1000, max block 0x0400, request 7, status 3 FILE_NOT_FOUND, "no"
    (
        "g70v4",
        "46 04 5B 01 0F 00 01 00 00 00 00 10 00 00 00 04 07 00 03 6E 6F",
        [E(None, 70, 4, None, FileCommandStatus(1, 4096, 1024, 7, "FILE_NOT_FOUND", "no"))],
    ),
    # handle 1, block 0x80000002: block 2, the last; data "AB"
    (
        "g70v5",
        "46 05 5B 01 0A 00 01 00 00 00 02 00 00 80 41 42",
        [E(None, 70, 5, None, FileTransport(1, 2, True, b"AB"))],
    ),
    (
        "g70v6",
        "46 06 5B 01 09 00 01 00 00 00 02 00 00 00 00",
        [E(None, 70, 6, None, FileTransportStatus(1, 2, False, "SUCCESS", ""))],
    ),
    # name offset 20 (0x14), size 3; type 1 (file); size 100; created T; permissions 0x01A4;
    # request 9; "dir"
    (
        "g70v7",
        "46 07 5B 01 17 00 14 00 03 00 01 00 64 00 00 00 " + TIME + " A4 01 09 00 64 69 72",
        [E(None, 70, 7, None, FileDescriptor("dir", 1, 100, T, 0o644, 9))],
    ),
    ("g70v8", "46 08 5B 01 05 00 2F 61 2F 62 63", [E(None, 70, 8, None, "/a/bc")]),
    # --- g80 internal indications, packed: 0x90 = bits 4 (NEED_TIME) and 7 (DEVICE_RESTART)
    ("g80v1", "50 01 00 00 0F 90 00", [E(None, 80, 1, i, i in (4, 7)) for i in range(16)]),
    # --- g110-g113 octet strings: the variation is the length
    ("g110v4", "6E 04 00 00 00 41 42 43 44", [E(None, 110, 4, 0, b"ABCD")]),
    ("g111v2", "6F 02 17 01 05 01 02", [E(None, 111, 2, 5, b"\x01\x02", event=True)]),
    ("g112v3", "70 03 17 01 00 61 62 63", [E(None, 112, 3, 0, b"abc")]),
    ("g113v1", "71 01 17 01 00 7A", [E(None, 113, 1, 0, b"z", event=True)]),
    # --- the other qualifiers carrying data
    # 0x01: 2-octet start 0x012C (300), stop 0x012D (301)
    (
        "0x01",
        "1E 01 01 2C 01 2D 01 01 01 00 00 00 01 02 00 00 00",
        [E("ai", 30, 1, 300, 1, ON), E("ai", 30, 1, 301, 2, ON)],
    ),
    # 0x02: 4-octet start = stop = 0x00011170 (70000)
    ("0x02", "1E 01 02 70 11 01 00 70 11 01 00 01 05 00 00 00", [E("ai", 30, 1, 70000, 5, ON)]),
    # 0x03: 1-octet virtual addresses 4..4, read as the index
    ("0x03", "1E 01 03 04 04 01 05 00 00 00", [E("ai", 30, 1, 4, 5, ON)]),
    # 0x07 on point objects: a count, no indexes
    ("0x07", "1E 01 07 01 01 05 00 00 00", [E("ai", 30, 1, None, 5, ON)]),
    ("0x08", "32 01 08 01 00 " + TIME, [E(None, 50, 1, None, T, None, T)]),
    ("0x09", "34 02 09 01 00 00 00 2C 01", [E(None, 52, 2, None, 300)]),
    # 0x39: 4-octet count 1, 4-octet index 70000
    (
        "0x39",
        "20 01 39 01 00 00 00 70 11 01 00 01 2A 00 00 00",
        [E("ai", 32, 1, 70000, 42, ON, event=True)],
    ),
    # 0x5B on a fixed-size object: size 5 then the object, no index
    ("0x5B fixed", "1E 01 5B 01 05 00 01 05 00 00 00", [E("ai", 30, 1, None, 5, ON)]),
    # 0x4B: 1-octet size prefix
    ("0x4B", "46 08 4B 01 02 2F 61", [E(None, 70, 8, None, "/a")]),
    # 0x27: 1-octet count, 2-octet index prefix
    ("0x27", "20 01 27 01 2C 01 01 2A 00 00 00", [E("ai", 32, 1, 300, 42, ON, event=True)]),
]


def _same_layout(source: int, group: int, type_: str) -> list[tuple[str, str, list[Expected]]]:
    """The rows of ``group`` made from those of ``source``, whose variations IEEE 1815-2012
    lays out alike (g23 as g22, g33 as g32): only the group octet and the type change."""
    return [
        (
            name.replace(f"g{source}v", f"g{group}v"),
            f"{group:02X}" + body[2:],
            [(type_, group, *e[2:]) for e in expected],
        )
        for name, body, expected in CASES
        if name.startswith(f"g{source}v")
    ]


CASES += _same_layout(22, 23, "frozen") + _same_layout(32, 33, "frozen_ai")


@pytest.mark.parametrize(
    ("body", "expected"), [(b, e) for _, b, e in CASES], ids=[i for i, _, _ in CASES]
)
def test_object_decodes_from_hand_laid_octets(body: str, expected: list[Expected]) -> None:
    assert decoded(body) == expected


def test_every_declared_variation_has_a_case() -> None:
    seen = {(e[1], e[2]) for _, _, expected in CASES for e in expected}
    declared = {(v.group, v.variation) for v in VARIATIONS if v.layout is not Layout.NONE}
    assert declared - seen == set()


def test_extended_attribute_list_counts_from_256() -> None:
    # EXTLIST (255) with length octet 0: 256 octets of (variation, properties) pairs
    pairs = "".join(f"{v:02X} 00 " for v in range(128))
    (obj,) = decoded("00 FF 00 00 00 FF 00 " + pairs)
    assert obj[4] == Attribute("EXTLIST", [AttributeEntry(v, 0) for v in range(128)])


def test_several_headers_in_one_response() -> None:
    # class 0 style: g1v2 0..1, then g30v1 0..0, then g20v1 0..0
    objects = decoded(
        "01 02 00 00 01 81 01 1E 01 00 00 00 01 2A 00 00 00 14 01 00 00 00 01 07 00 00 00"
    )
    assert [(o[0], o[3], o[4]) for o in objects] == [
        ("bi", 0, True),
        ("bi", 1, False),
        ("ai", 0, 42),
        ("counter", 0, 7),
    ]
