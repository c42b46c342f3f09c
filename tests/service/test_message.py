"""How many items a message holds, counted before it is parsed (operations/message.py): exactly
the array elements, object members and empty containers of the JSON value, whatever its
strings hold (commas, brackets, quotes and backslashes escaped), checked against a count made
on the value itself; and any octets at all end in nothing but our own refusal."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.operations.message import MESSAGE_ITEMS, TooManyItems, check_items

# Text full of what a counter of commas and brackets could be fooled by.
TRICKY = st.text(alphabet=st.sampled_from(list(',[{]}"\\:ab /\n\u00e9')), max_size=12)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | TRICKY,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(TRICKY, inner, max_size=6),
    max_leaves=40,
)


def items(value: Any) -> int:
    """Array elements and object members, an empty array or object counting one."""
    if isinstance(value, list):
        return max(len(value), 1) + sum(items(v) for v in value)
    if isinstance(value, dict):
        return max(len(value), 1) + sum(items(v) for v in value.values())
    return 0


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans())
def test_the_count_is_exact_whatever_the_strings_hold(value: Any, pretty: bool) -> None:
    text = json.dumps(value, indent=1).encode() if pretty else orjson.dumps(value)
    count = items(value)
    check_items(text, count)  # exactly as many: taken
    if count:
        with pytest.raises(TooManyItems):
            check_items(text, count - 1)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 20))
def test_any_octets_end_in_nothing_but_our_refusal(octets: bytes, limit: int) -> None:
    with contextlib.suppress(TooManyItems):
        check_items(octets, limit)


def test_the_limit_and_what_it_says() -> None:
    lists = b"[" + b",".join([b"[]"] * (MESSAGE_ITEMS // 2)) + b"]"
    check_items(lists)  # 5,000 empty lists and the commas between them: 10,000 items
    with pytest.raises(TooManyItems, match="more than 10000 items"):
        check_items(lists[:-1] + b",[]]")
    # A Device Profile document of 4 MiB with commas and quoted attributes in its text is
    # one string: one item, whatever it holds.
    document = '<a x="1">t, [t], {t}</a>' * 170_000
    check_items(orjson.dumps({"document": document}))
    check_items(bytearray(orjson.dumps([document])))
