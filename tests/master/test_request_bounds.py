"""A request is bounded before it is built (issue 9, item 2): a read's indexes and ranges are
merged as ranges (sorted, overlapping and adjacent ones joined), never expanded into their
indexes; and a request that would not fit the outstation's fragment (``max_request_fragment``,
2048 octets unless set) is refused before anything is built or sent.

Range headers are read back by hand as IEEE 1815-2012 lays them out: group, variation,
qualifier 0x00 (one-octet start and stop) or 0x01 (two-octet, least significant first)."""

from __future__ import annotations

import asyncio
import itertools
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import RequestError
from gridwire.master import Master, OutstationSettings
from gridwire.master.association import Association
from gridwire.master.scans import READ_ITEMS, merged, read_body
from tests.master.scripted import ScriptedOutstation, user_data

ROOM = 2048 - 2  # object data of a default request: the fragment less control and function


def ranges_of(body: bytes) -> list[tuple[int, int, int]]:
    """(group, start, stop) of each range header, read by hand; variation 0 each."""
    out = []
    at = 0
    while at < len(body):
        group, variation, qualifier = body[at : at + 3]
        assert variation == 0
        if qualifier == 0x00:
            start, stop = body[at + 3], body[at + 4]
            at += 5
        else:
            assert qualifier == 0x01
            start, stop = struct.unpack_from("<HH", body, at + 3)
            at += 7
        out.append((group, start, stop))
    return out


def test_ranges_are_merged_never_expanded() -> None:
    # 1000 whole ranges of ai are one header: g30 v0, qualifier 0x01, 0..65535.
    assert read_body({"ai": ["0-65535"] * 1000}) == bytes.fromhex("1e 00 01 0000 ffff")
    # Overlapping, adjacent and repeated items, in any order, as the fewest headers:
    # 3-10 (g1, qualifier 0x00) and 20, then bo 300-301 (g10, qualifier 0x01).
    body = read_body({"bi": ["5-9", 10, " 3 - 6 ", 20, "20"], "bo": [301, 300]})
    assert body == bytes.fromhex("01 00 00 03 0a  01 00 00 14 14  0a 00 01 2c01 2d01")
    assert merged([(7, 9), (0, 3), (4, 5), (9, 9), (2, 2)]) == [(0, 5), (7, 9)]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 300), st.integers(0, 40)).map(lambda t: (t[0], t[0] + t[1])),
        min_size=1,
        max_size=40,
    )
)
def test_merged_headers_name_exactly_the_indexes_named(spans: list[tuple[int, int]]) -> None:
    items: list[int | str] = [
        start if start == stop else f"{start}-{stop}" for start, stop in spans
    ]
    named = {index for start, stop in spans for index in range(start, stop + 1)}
    headers = ranges_of(read_body({"ai": items}))
    covered = [index for _, start, stop in headers for index in range(start, stop + 1)]
    assert sorted(covered) == sorted(named)  # each index once
    # The fewest: no two headers touch or overlap.
    assert all(b[1] > a[2] + 1 for a, b in itertools.pairwise(headers))


def test_too_many_items_and_headers_that_cannot_fit_are_refused() -> None:
    with pytest.raises(RequestError, match=f"at most {READ_ITEMS}"):
        read_body({"ai": [0] * (READ_ITEMS // 2), "bi": [0] * (READ_ITEMS // 2 + 1)})
    # 128 single even indexes below 256: 128 headers of 5 octets fit. With 250 more above
    # 1000, of 7 octets each: 378 * 5 octets would fit, but 128 * 5 + 250 * 7 = 2390 do not.
    low = list(range(0, 256, 2))
    assert len(read_body({"ai": low}, ROOM)) == 128 * 5
    high = list(range(1000, 1500, 2))
    with pytest.raises(
        RequestError, match=r"378 range headers take 2390 octets, more than the 2046"
    ):
        read_body({"ai": low + high}, ROOM)
    # 410 headers cannot fit even at 5 octets each: refused before any is built.
    many = list(range(0, 4 * 410, 4))
    with pytest.raises(RequestError, match="410 range headers take at least 2050 octets"):
        read_body({"ai": many}, ROOM)
    with pytest.raises(RequestError, match=r"'9-3'"):
        read_body({"ai": ["9-3"]})
    with pytest.raises(RequestError, match=r"ai 'x{36}\.\.\. is not an index"):
        read_body({"ai": ["x" * 100_000]})  # the item is cut short in the message


def test_a_request_larger_than_the_fragment_is_refused_and_the_sequence_stays() -> None:
    association = Association(max_request=249)
    with pytest.raises(RequestError, match="250 octets is larger than the 249"):
        association.request(FunctionCode.WRITE, bytes(248))
    assert association.next_sequence == 0
    out = association.request(FunctionCode.WRITE, bytes(247))  # 2 + 247 = 249 octets
    assert (out.seq, len(out.fragment)) == (0, 249)
    assert association.next_sequence == 1


def outstation_settings(port: int, **fields: Any) -> OutstationSettings:
    return OutstationSettings(
        name="s", host="127.0.0.1", port=port, manual=True, reconnect=None, **fields
    )


async def test_nothing_oversized_reaches_the_wire() -> None:
    async with ScriptedOutstation() as out:
        master = Master(allow_control=True)
        await master.add(outstation_settings(out.port))
        for refused in (
            master.request("s", "WRITE", bytes(2047)),
            master.broadcast("s", "WRITE", bytes(2047)),
            master.read("s", {"ai": list(range(0, 4 * 410, 4))}),
            master.operate("s", {"ao": {str(i): i for i in range(512)}}),
        ):
            with pytest.raises(RequestError, match="max_request_fragment"):
                await refused
        assert await out.no_frame(0.3)
        # The first request after them carries application sequence 0: none took a number.
        # Transport octet FIR|FIN, application control FIR|FIN seq 0, READ, then one header.
        reading = asyncio.ensure_future(master.read("s", {"ai": ["0-65535"] * 100}))
        wanted = bytes.fromhex("c0 c0 01 1e 00 01 0000 ffff")
        assert user_data(await out.frame())[: len(wanted)] == wanted  # then the CRC
        reading.cancel()
        await master.close()


async def test_a_larger_fragment_can_be_set() -> None:
    async with ScriptedOutstation() as out:
        master = Master(allow_control=True)
        await master.add(outstation_settings(out.port, max_request_fragment=4096))
        sending = asyncio.ensure_future(master.request("s", "WRITE", bytes(4000)))
        data = user_data(await out.frame())
        assert data[:3] == bytes.fromhex("40 c0 02")  # first segment: FIR; WRITE, seq 0
        sending.cancel()
        with pytest.raises(RequestError, match="4098 octets is larger than the 4096"):
            await master.request("s", "WRITE", bytes(4096))
        await master.close()
