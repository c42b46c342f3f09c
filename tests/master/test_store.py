"""The value store and the event log, fed with objects decoded from literal response octets."""

from __future__ import annotations

import pytest

from gridwire.dnp3.app.fragments import parse_response
from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.store import EventLog, ValueStore, name_objects

# A response (C3: FIR|FIN seq 3; 81 RESPONSE; IIN 00 00) carrying, by hand:
#   01 02 00 00 01 | 81 01        g1v2 binary inputs 0..1 (start-stop 0x00): 0x81 = state 1
#                                 and ONLINE, 0x01 = state 0 and ONLINE
#   1E 01 00 05 05 | 01 2A000000  g30v1 analog input 5: ONLINE, 42
#   20 01 17 01 05 | 01 2B000000  g32v1 analog event, 1-octet count and index (0x17): index
#                                 5, ONLINE, 43
#   32 01 07 01 | E8 03 00 00 00 00  g50v1 time (count 1): 0x03E8 = 1000 ms, not a point
RESPONSE = bytes.fromhex(
    "".join(
        (
            "c3810000",
            "01020000018101",
            "1e01000505012a000000",
            "2001170105012b000000",
            "32010701e80300000000",
        )
    )
)


def objects() -> list[DnpObject]:
    response = parse_response(RESPONSE)
    assert response.undecoded == []
    return response.objects


def test_latest_value_per_point_with_age_and_origin() -> None:
    store = ValueStore()
    assert store.update(objects(), now=100.0) == 4  # the time object is not a point
    values = store.values(now=100.25)
    assert [(v.type, v.index, v.value, v.event, v.group, v.variation) for v in values] == [
        ("ai", 5, 43, True, 32, 1),  # the event came after the static value and replaced it
        ("bi", 0, True, False, 1, 2),
        ("bi", 1, False, False, 1, 2),
    ]
    assert all(v.flags == ["ONLINE"] and v.time_ms is None for v in values)
    assert all(v.age_ms == pytest.approx(250.0) for v in values)
    assert all(v.name is None for v in values)
    assert store.get("ai", 5, now=101.0).age_ms == pytest.approx(1000.0)  # type: ignore[union-attr]
    assert store.get("ai", 6) is None
    assert len(store) == 3


def test_names_come_from_the_profile_callback() -> None:
    names = {("bi", 0): "Breaker closed", ("ai", 5): "Frequency"}
    store = ValueStore(lambda kind, index: names.get((kind, index)))
    store.update(objects(), now=0.0)
    assert [(v.type, v.index, v.name) for v in store.values(now=0.0)] == [
        ("ai", 5, "Frequency"),
        ("bi", 0, "Breaker closed"),
        ("bi", 1, None),
    ]
    decoded = objects()
    name_objects(decoded, lambda kind, index: names.get((kind, index)))
    assert [o.name for o in decoded] == ["Breaker closed", None, "Frequency", "Frequency", None]


def test_clear_forgets_and_counts() -> None:
    store = ValueStore()
    store.update(objects(), now=0.0)
    assert store.clear() == 3
    assert store.values(now=0.0) == []
    assert store.clear() == 0


def test_event_log_keeps_only_events_in_arrival_order() -> None:
    log = EventLog()
    assert log.mark() == 0
    assert log.add(objects()) == 1
    assert [(o.type, o.index, o.value) for o in log.items()] == [("ai", 5, 43)]
    assert log.mark() == 1


def _event(index: int) -> DnpObject:
    return DnpObject("bi", 2, 1, index, None, True, ["ONLINE"], None, None, True)


def test_event_log_is_bounded_and_drops_the_oldest() -> None:
    log = EventLog(limit=3)
    log.add(_event(i) for i in range(5))
    assert [o.index for o in log.items()] == [2, 3, 4]
    assert len(log) == 3
    assert log.mark() == 5


def test_event_log_after_a_mark_survives_dropping_and_clearing() -> None:
    log = EventLog(limit=3)
    log.add([_event(0), _event(1)])
    mark = log.mark()
    assert log.after(mark) == []
    log.add(_event(i) for i in range(2, 6))  # 0..3 dropped, 4 events after the mark
    assert [o.index for o in log.after(mark)] == [3, 4, 5]  # only three are still kept
    assert [o.index for o in log.after(0)] == [3, 4, 5]
    assert log.clear() == 3
    assert log.items() == []
    log.add([_event(9)])
    assert log.mark() == 7  # the running sequence went on
    assert [o.index for o in log.after(mark)] == [9]


def test_event_log_limit_must_hold_one() -> None:
    with pytest.raises(ValueError, match="at least one"):
        EventLog(limit=0)
