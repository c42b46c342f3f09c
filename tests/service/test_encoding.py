"""The service's JSON: octets as hexadecimal text, models and records as objects, and the
sliced encoding of long lists giving exactly orjson's octets while it yields to the loop."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.dnp3.objects.records import (
    AnalogCommand,
    Attribute,
    AttributeEntry,
    Crob,
    DnpObject,
    TimeAndInterval,
)
from gridwire.master.settings import TaskSettings
from gridwire.operations.encoding import CHUNK, EventEncoder, dumps, encode


@dataclass(slots=True)
class Inner:
    items: list[Any]
    note: str = "n"


@dataclass(slots=True)
class Outer:
    name: str
    inner: list[Inner] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)


def test_what_orjson_does_not_write_by_itself() -> None:
    octets = DnpObject("ostr", 110, 3, 7, None, b"\x00\xffA", None, None, None, False)
    assert dumps(octets) == (
        b'{"type":"ostr","group":110,"variation":3,"index":7,"name":null,"value":"00ff41",'
        b'"flags":null,"time_ms":null,"synchronized":null,"event":false}'
    )
    crob = Crob(code=3, op="LATCH_ON", count=1, on_ms=100, off_ms=100, status="SUCCESS")
    assert dumps({"value": crob}) == (
        b'{"value":{"code":3,"op":"LATCH_ON","count":1,"on_ms":100,"off_ms":100,'
        b'"status":"SUCCESS"}}'
    )
    assert dumps(TaskSettings(enable_unsolicited=[2])) == (
        b'{"startup":true,"clear_restart":false,"write_time":false,'
        b'"events_when_indicated":true,"integrity_on_overflow":true,"enable_unsolicited":[2]}'
    )
    assert dumps({"file": Path("/tmp/x.pcap"), 1: {3, 1}}) == b'{"file":"/tmp/x.pcap","1":[1,3]}'


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.binary(max_size=4),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.builds(Inner, st.lists(inner, max_size=3), st.text(max_size=2)),
    ),
    max_leaves=12,
)


@st.composite
def big(draw: st.DrawFn) -> Any:
    """A structure with a long list somewhere inside: top level, in a record, in a dict."""
    long = draw(st.lists(leaves, min_size=CHUNK + 1, max_size=2 * CHUNK + 7))
    inside = draw(st.sampled_from(["top", "record", "dict", "nested"]))
    if inside == "top":
        return long
    if inside == "record":
        return Outer("x", [Inner(long)], {"k": draw(values)})
    if inside == "dict":
        return {"a": draw(values), "long": long}
    return [Outer("y", [Inner([1]), Inner(long, "z")]), draw(values)]


@given(st.one_of(values, big()))
@settings(max_examples=60, deadline=None)
def test_sliced_encoding_gives_orjsons_octets(value: Any) -> None:
    assert asyncio.run(encode(value)) == dumps(value)


plain_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(min_value=-9999999999999998.0, max_value=9999999999999998.0),
    st.text(max_size=4),
    # records whose fields msgspec writes as orjson does (D206)
    st.builds(
        TimeAndInterval, st.integers(0, 2**48), st.integers(0, 2**32 - 1), st.text(max_size=3)
    ),
    st.builds(
        AnalogCommand, st.integers(-(2**31), 2**31) | st.floats(-1e15, 1e15), st.text(max_size=3)
    ),
)
other_values = st.one_of(
    st.floats(),  # nan, infinities, and exponents past 1e16 go to orjson
    st.sampled_from([1e16, -1e16, 1.5e300, float("nan"), float("inf")]),
    st.binary(max_size=4),  # octets: hex, as orjson's default writes them
    st.builds(AnalogCommand, st.floats(), st.just("SUCCESS")),  # a record's float, the same
    st.builds(
        Attribute,
        st.just("LIST"),
        st.lists(st.builds(AttributeEntry, st.integers(0, 255), st.integers(0, 255)), max_size=2),
    ),
)


def objects(value: st.SearchStrategy[Any]) -> st.SearchStrategy[DnpObject]:
    return st.builds(
        DnpObject,
        type=st.sampled_from(["bi", "ai", "counter", None]),
        group=st.integers(0, 255),
        variation=st.integers(0, 255),
        index=st.none() | st.integers(0, 65535),
        name=st.none() | st.text(max_size=6),
        value=value,
        flags=st.none() | st.lists(st.sampled_from(["ONLINE", "RESTART"]), max_size=2),
        time_ms=st.none() | st.integers(0, 2**48),
        synchronized=st.none() | st.booleans(),
        event=st.booleans(),
    )


@given(
    st.lists(objects(plain_values), min_size=1, max_size=8),
    st.lists(objects(other_values), max_size=2),
)
@settings(max_examples=40, deadline=None)
def test_decoded_objects_are_written_as_orjson_writes_them(
    plain: list[DnpObject], other: list[DnpObject]
) -> None:
    # msgspec writes the slices whose values it writes as orjson does (D150); a slice with
    # any other value is orjson's. The drawn objects are repeated past a slice.
    items = (plain * (CHUNK // len(plain) + 2))[: CHUNK + 3] + other
    assert asyncio.run(encode({"objects": items})) == dumps({"objects": items})


async def test_long_lists_let_the_loop_run() -> None:
    objects = [DnpObject("ai", 30, 1, i, None, i * 0.5, ["ONLINE"], None, None, False)
               for i in range(9000)]  # fmt: skip
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.ensure_future(ticker())
    await asyncio.sleep(0)
    before = ticks
    encoded = await encode({"objects": objects})
    task.cancel()
    assert orjson.loads(encoded)["objects"][8999]["index"] == 8999
    # 9000 objects in slices of CHUNK: the loop ran between every two slices.
    assert ticks - before >= 9000 // CHUNK


async def test_each_update_is_encoded_once() -> None:
    encoder = EventEncoder(keep=2)
    data: dict[str, Any] = {"outstation": "y", "objects": [1, 2]}
    first = await encoder.data(data)
    data["objects"].append(3)  # the same object again is taken from the cache...
    assert await encoder.data(data) == first
    other = {"outstation": "z"}
    assert await encoder.data(other) == b'{"outstation":"z"}'
    assert await encoder.data({"outstation": "w"}) == b'{"outstation":"w"}'
    assert await encoder.data(data) == b'{"outstation":"y","objects":[1,2,3]}'  # ...until evicted
