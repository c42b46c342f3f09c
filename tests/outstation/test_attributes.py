"""Device attributes (group 0) as the outstation serves them, against octets derived by hand
from IEEE 1815-2012's layout of group 0: the object header (group 00, variation = the
attribute, qualifier 0x00, start = stop = the attribute set), then the data type code, the
length and the value (little-endian numbers, UTF-8 text).

Every response starts C? 81 90 00: FIR|FIN and the sequence, RESPONSE, IIN1 0x90 (a fresh
outstation: DEVICE_RESTART and NEED_TIME), IIN2 0x00 (0x02: OBJECT_UNKNOWN, 0x04:
PARAMETER_ERROR).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.objects.records import Attribute
from gridwire.errors import ConfigError
from gridwire.outstation.database import Database
from gridwire.simulator.attributes import SERIAL, VENDOR
from gridwire.simulator.der import SimulatedDer
from tests.outstation.conftest import make_wire, small_database
from tests.outstation.wire import hexes

# g0v203 altitude: FLT (04), 4 octets, 1.5 as an IEEE single (3F C0 00 00, little-endian)
ALTITUDE = "00 CB 00 00 00 04 04 00 00 C0 3F"
# g0v240 maximum transmit fragment size: UINT (02), 2 octets, 2048 = 0x0800
TRANSMIT = "00 F0 00 00 00 02 02 00 08"
# g0v252 manufacturer's name: VSTR (01), 3 octets, "ABC"
VENDOR_ABC = "00 FC 00 00 00 01 03 41 42 43"


def _with_attributes() -> Database:
    db = small_database()
    db.set_attribute(252, Attribute("VSTR", "ABC"))
    db.set_attribute(240, Attribute("UINT", 2048))
    db.set_attribute(203, Attribute("FLT", 1.5))
    return db


def test_all_attributes_literal() -> None:
    wire = make_wire(_with_attributes())
    # READ (01) g0v254 (00 FE) qualifier 0x06: every attribute of every set, each its own
    # header, in variation order.
    assert hexes(wire.send("C0 01 00 FE 06")) == [
        "C0 81 90 00 " + ALTITUDE + " " + TRANSMIT + " " + VENDOR_ABC
    ]
    # The same for set 0 named by start-stop 0..0 (qualifier 0x00).
    assert hexes(wire.send("C1 01 00 FE 00 00 00")) == [
        "C1 81 90 00 " + ALTITUDE + " " + TRANSMIT + " " + VENDOR_ABC
    ]


def test_one_attribute_and_the_list_literal() -> None:
    wire = make_wire(_with_attributes())
    assert hexes(wire.send("C2 01 00 FC 00 00 00")) == ["C2 81 90 00 " + VENDOR_ABC]
    # g0v255: data type LIST (FE), 6 octets: (variation, properties 0) for 203, 240, 252
    assert hexes(wire.send("C3 01 00 FF 06")) == [
        "C3 81 90 00 00 FF 00 00 00 FE 06 CB 00 F0 00 FC 00"
    ]


def test_refusals() -> None:
    wire = make_wire(_with_attributes())
    assert hexes(wire.send("C4 01 00 F8 06")) == ["C4 81 90 02"]  # g0v248 not served
    assert hexes(wire.send("C5 01 00 FE 07 01")) == ["C5 81 90 04"]  # a count names no set
    # an outstation given no attributes does not serve group 0 at all
    assert hexes(make_wire().send("C6 01 00 FE 06")) == ["C6 81 90 02"]


def test_attributes_that_cannot_be_served_are_refused_when_given() -> None:
    db = Database()
    with pytest.raises(ConfigError, match=r"1\.\.253"):
        db.set_attribute(254, Attribute("VSTR", "x"))
    with pytest.raises(ConfigError, match="g0v252"):
        db.set_attribute(252, Attribute("VSTR", "x" * 300))


def test_simulated_der_serves_the_standard_attributes_as_group_0_lays_them_out() -> None:
    der = SimulatedDer()
    octets = " ".join(f"{b:02X}" for b in VENDOR.encode())
    serial = " ".join(f"{b:02X}" for b in SERIAL.encode())
    wire = make_wire(der.database)
    # vendor (252): VSTR, len("gridwire") = 8; serial (248): VSTR, 11 octets
    assert hexes(wire.send("C0 01 00 FC 00 00 00")) == [
        f"C0 81 90 00 00 FC 00 00 00 01 08 {octets}"
    ]
    assert hexes(wire.send("C1 01 00 F8 00 00 00")) == [
        f"C1 81 90 00 00 F8 00 00 00 01 0B {serial}"
    ]
    # the number of binary inputs (239): UINT, the count of bi points the DER serves
    count = len(der.database.indices("bi"))
    assert count < 256
    assert hexes(wire.send("C2 01 00 EF 00 00 00")) == [
        f"C2 81 90 00 00 EF 00 00 00 02 01 {count:02X}"
    ]


_READ_HEADERS = st.one_of(
    st.tuples(st.integers(0, 255), st.just(0x06)).map(lambda t: bytes((0, t[0], 0x06))),
    st.tuples(st.integers(0, 255), st.integers(0, 3), st.integers(0, 3)).map(
        lambda t: bytes((0, t[0], 0x00, t[1], t[2]))
    ),
    st.tuples(st.integers(0, 255), st.lists(st.integers(0, 3), min_size=1, max_size=3)).map(
        lambda t: bytes((0, t[0], 0x17, len(t[1]), *t[1]))
    ),
    st.tuples(st.integers(0, 255), st.integers(0, 9)).map(lambda t: bytes((0, t[0], 0x07, t[1]))),
)


@given(_READ_HEADERS)
@settings(max_examples=150, deadline=None)
def test_any_group_0_read_is_answered_with_attributes_or_refused(header: bytes) -> None:
    db = _with_attributes()
    db.set_attribute(247, Attribute("VSTR", "second set"), attribute_set=2)
    answer = make_wire(db).ask(bytes((0xC0, 0x01)) + header)
    refused = answer.iin & (IIN.OBJECT_UNKNOWN | IIN.PARAMETER_ERROR)
    if refused:
        assert answer.objects == []
        return
    assert answer.objects and all(o.group == 0 for o in answer.objects)
    asked = header[1]
    for obj in answer.objects:
        assert obj.index in (0, 2)
        stored = db.attributes.get((obj.index or 0, obj.variation))
        if asked == 255:
            assert obj.variation == 255
        else:
            assert stored is not None and obj.value == stored
            assert asked in (254, obj.variation)


def test_a_range_naming_no_set_is_a_parameter_error() -> None:
    # READ g0v254 start-stop 1..1: set 1 does not exist, PARAMETER_ERROR (IIN2.2, 0x04)
    assert hexes(make_wire(_with_attributes()).send("C0 01 00 FE 00 01 01")) == ["C0 81 90 04"]
