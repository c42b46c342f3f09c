"""The request in flight keeps the objects of its responses in one list as they are taken
in; the exchange's record is the one joined at the end would have been, and no response's
own list is changed."""

from __future__ import annotations

import asyncio

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.exchange import ExchangeRules
from gridwire.master.in_flight import InFlight
from gridwire.master.records import exchange_record

# Response fragments laid out by hand: application control (FIR 80, FIN 40, seq), 81
# (RESPONSE), IIN 00 00, then g1v2 (binary input with flags), qualifier 00, start, stop, a
# flags octet per point (81: ONLINE, state 1; 01: ONLINE, state 0).
FIRST = bytes.fromhex("80 81 00 00 01 02 00 00 01 81 01")  # FIR, seq 0: points 0, 1
MIDDLE = bytes.fromhex("01 81 00 00 01 02 00 02 02 81")  # seq 1: point 2
LAST = bytes.fromhex("42 81 00 00 01 02 00 03 04 01 01")  # FIN, seq 2: points 3, 4


async def _flight() -> InFlight:
    transaction = ExchangeRules().start(FunctionCode.READ, 0, timeout=1.0, read_retries=0)
    return InFlight(transaction, FunctionCode.READ, b"", asyncio.get_running_loop().create_future())


def _points(objects: list[DnpObject]) -> list[tuple[int, object]]:
    return [(o.index, o.value) for o in objects]


async def test_objects_of_every_fragment_in_one_list_and_no_response_changed() -> None:
    flight = await _flight()
    responses = [parse_response(octets) for octets in (FIRST, MIDDLE, LAST)]
    for response in responses:
        flight.take(response)
    expected = [(0, True), (1, False), (2, True), (3, False), (4, False)]
    assert _points(flight.objects) == expected
    assert [len(r.objects) for r in responses] == [2, 1, 2]  # each its own, unchanged
    record = exchange_record("READ", None, 0, "complete", b"", responses, 1.0)
    given = exchange_record(
        "READ", None, 0, "complete", b"", responses, 1.0, objects=flight.objects
    )
    assert given == record and _points(given.objects) == expected


async def test_one_fragment_objects_are_its_list_uncopied() -> None:
    flight = await _flight()
    only = parse_response(FIRST)
    flight.take(only)
    assert flight.objects is only.objects
    flight.take(parse_response(LAST))
    assert len(only.objects) == 2 and len(flight.objects) == 4
