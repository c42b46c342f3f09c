"""An exchange's objects written as its fragments are taken in (D235), from response fragments
written out by hand; and octet strings written by msgspec through its hook (D236).

The fragments: a response's first fragment (A3: FIR, CON, sequence 3; 81: RESPONSE; IIN 00 00)
of 600 binary inputs with flags (g1v2, qualifier
0x01: two-octet start 0 and stop 599, one flag octet each, 0x81 = ONLINE and state 1) and one
of 600 analog inputs (g30v2, qualifier 0x01, start 0 stop 599, a flag octet and a 16-bit
value each: 0x01 then 0x2A 0x00 = 42) in its last (43: FIN, sequence 3). Together 1200 objects: more than one slice (CHUNK).
"""

from __future__ import annotations

import asyncio
import logging

import msgspec
import pytest

from gridwire.dnp3.app.fragments import Response, parse_response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.objects.fixed import fixed_codec
from gridwire.dnp3.objects.records import Octets
from gridwire.dnp3.objects.table import lookup
from gridwire.master.exchange import Transaction
from gridwire.master.in_flight import InFlight, taken_observer
from gridwire.master.records import Exchange, exchange_record
from gridwire.operations.early_json import EARLY_OBJECTS, EarlyObjects, observing
from gridwire.operations.encoding import CHUNK, _msgspec_form, dumps, encode_parts

BINARIES = bytes.fromhex("A381000001020100005702") + b"\x81" * 600
ANALOGS = bytes.fromhex("438100001E020100005702") + b"\x01\x2a\x00" * 600


def _responses() -> list[Response]:
    return [parse_response(BINARIES), parse_response(ANALOGS)]


def _exchange(responses: list[Response]) -> Exchange:
    return exchange_record("READ", None, 3, "complete", b"\xc3\x01", responses, 12.5)


async def _joined(value: object, early: EarlyObjects) -> bytes:
    return b"".join(await encode_parts(value, None, early))


async def test_objects_written_as_they_arrive_are_orjsons_octets() -> None:
    responses = _responses()
    assert [len(r.objects) for r in responses] == [600, 600]
    assert responses[0].objects[599].value is True
    assert responses[1].objects[0].value == 42 and responses[1].objects[0].flags == ["ONLINE"]
    early = EarlyObjects()
    for response in responses:
        early(response)
    exchange = _exchange(responses)
    assert await _joined(exchange, early) == dumps(exchange)
    assert early.used == 1
    # One fragment's list (an exchange of one fragment keeps it uncopied) is written alike.
    single = _exchange(responses[1:])
    assert await _joined(single, early) == dumps(single) and early.used == 2


async def test_a_list_not_made_of_the_fragments_taken_is_written_as_before() -> None:
    responses = _responses()
    early = EarlyObjects()
    for response in responses:
        early(response)
    objects = [*responses[0].objects, *responses[1].objects]
    swapped = [*objects[:599], objects[600], objects[599], *objects[601:]]  # a boundary moved
    assert early.parts_for(swapped) is None
    assert early.parts_for(objects[1:]) is None  # not the fragments' lengths
    assert early.parts_for(objects[: CHUNK + 1]) is None
    assert early.parts_for(list(reversed(objects))) is None
    assert await _joined(swapped, early) == dumps(swapped) and early.used == 0
    assert await _joined(objects, early) == dumps(objects) and early.used == 1


async def test_observed_inside_the_operation_only() -> None:
    early = EarlyObjects()
    assert taken_observer.get() is None
    started: list[asyncio.Task[object]] = []
    with observing(early):
        assert taken_observer.get() is early
        started.append(asyncio.ensure_future(asyncio.sleep(0, taken_observer.get())))
        early(_responses()[0])
    assert taken_observer.get() is None
    # A task started inside inherits the observer, but the block's end closed it: what its
    # requests take in later is not kept, and the parts made are let go.
    assert await started[0] is early and early.closed
    early(_responses()[1])
    assert early.parts_for(_responses()[1].objects) is None
    with observing(None):
        assert taken_observer.get() is None


async def test_an_observer_that_fails_is_logged_and_the_fragment_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def failing(response: Response) -> None:
        raise ValueError("no")

    transaction = Transaction(FunctionCode.READ, 1, timeout=5.0)
    flight = InFlight(
        transaction, FunctionCode.READ, b"", asyncio.get_running_loop().create_future()
    )
    flight.observer = failing
    response = _responses()[0]
    with caplog.at_level(logging.ERROR, logger="gridwire.master.in_flight"):
        flight.take(response)
    assert flight.responses == [response]
    assert "observer of a response fragment failed" in caplog.text


def test_octet_strings_are_octets_written_by_msgspecs_hook() -> None:
    # g110v2, points 5-6: "AB" then 0x00 0xFF.
    decl = lookup(110, 2)
    assert decl is not None
    strings = fixed_codec(decl).ranged(b"AB\x00\xff", range(5, 7), None, None)
    assert [type(o.value) for o in strings] == [Octets, Octets]
    assert strings[0].value == b"AB" and isinstance(strings[1].value, bytes)
    assert _msgspec_form(strings) is strings  # written as they are, not rebuilt
    assert dumps([strings[1].value]) == b'["00ff"]'
    assert msgspec.json.encode(b"\x00\xff") == b'"AP8="'  # what plain bytes would become


async def test_a_fragment_too_long_to_write_at_once_is_written_in_slices_in_its_place() -> None:
    # 3000 binary inputs with flags in one fragment (A3: FIR, CON, sequence 3; qualifier
    # 0x01, start 0, stop 2999 = 0x0BB7), more than EARLY_OBJECTS: not written as it
    # arrives, but in slices between the parts of the fragments around it (600 each).
    huge = parse_response(bytes.fromhex("238100000102010000B70B") + b"\x01" * 3000)
    assert len(huge.objects) == 3000 > EARLY_OBJECTS
    first, last = _responses()
    early = EarlyObjects()
    for response in (first, huge, last):
        early(response)
    parts = early.parts_for([*first.objects, *huge.objects, *last.objects])
    assert parts is not None and parts[3] is huge.objects
    exchange = _exchange([first, huge, last])
    assert await _joined(exchange, early) == dumps(exchange) and early.used == 2
