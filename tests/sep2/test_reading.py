"""The /time reading derived from the timebase: the offset applied to the local clock, the
server's own time zone fields, and nulls where the contract says."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.sep2.errors import ResourceError
from gridwire.sep2.parsing import parse_time
from gridwire.sep2.reading import TimeReading, TimeUnavailable, round_half_up, time_reading
from gridwire.sep2.resources import Time
from gridwire.sep2.timebase import FsaLink, Timebase
from tests.sep2.test_timebase import HandClock

# US Eastern 2024: EST is UTC-5 (-18000 s), daylight saving +3600 s from 2024-03-10 07:00 UTC
# (1710054000) to 2024-11-03 06:00 UTC (1730613600).
EASTERN = {
    "dst_end_time": 1730613600,
    "dst_offset": 3600,
    "dst_start_time": 1710054000,
    "tz_offset": -18000,
}


def eastern(current: int) -> Time:
    return Time(
        href="/tm", poll_rate=None, current_time=current, local_time=None, quality=7, **EASTERN
    )


def test_unavailable_before_any_observation() -> None:
    reading = time_reading(Timebase(HandClock(), enabled=False))
    assert isinstance(reading, TimeUnavailable)
    assert reading.source == "unavailable" and not reading.available
    # Every field derived from an observation is null, dst_active included; timebase_enabled
    # is a setting, not derived, and says what it is.
    derived = [
        reading.current_time, reading.local_time, reading.tz_offset, reading.dst_offset,
        reading.dst_active, reading.quality, reading.offset_seconds, reading.age_seconds,
        reading.href,
    ]  # fmt: skip
    assert derived == [None] * 9
    assert reading.timebase_enabled is False


def test_summer_reading_applies_daylight_saving() -> None:
    # Local clock 1720000000.0 (2024-07-03 09:46:40 UTC); the head-end says 1720000100, taken
    # as 1720000100.5, so the offset is 100.5. Ten seconds later the head-end's time is
    # 1720000110.5 + 0.3 = 1720000110.8, rounded 1720000111. Local: -18000 + 3600 (in DST) ->
    # 1720000110.8 - 14400 = 1719985710.8, rounded 1719985711.
    clock = HandClock(wall=1_720_000_000.0)
    tb = Timebase(clock)
    tb.set_structure("/tm", [])
    tb.observe(eastern(1_720_000_100), "/tm", clock.wall(), clock.monotonic())
    clock.advance(10.3)
    reading = time_reading(tb)
    assert reading.source == "server"
    assert reading.current_time == 1_720_000_111
    assert reading.local_time == 1_719_985_711
    assert (reading.tz_offset, reading.dst_offset, reading.dst_active) == (-18000, 3600, True)
    assert (reading.quality, reading.offset_seconds, reading.href) == (7, 100.5, "/tm")
    assert reading.age_seconds == 10.3


def test_winter_reading_and_the_dst_boundary_between_polls() -> None:
    # Observed 100 s before daylight saving ends (1730613500 local clock, offset 0.5); the
    # reading crosses the boundary with no new poll: dst_active turns false by itself.
    clock = HandClock(wall=1_730_613_500.0)
    tb = Timebase(clock)
    tb.set_structure("/tm", [])
    tb.observe(eastern(1_730_613_500), "/tm", clock.wall(), clock.monotonic())
    before = time_reading(tb)
    assert before.dst_active is True and before.local_time == 1_730_613_501 - 14400
    clock.advance(200)
    after = time_reading(tb)
    assert after.dst_active is False
    assert after.current_time == 1_730_613_701  # 1730613700.5 rounds up
    assert after.local_time == 1_730_613_701 - 18000


def test_time_zone_fields_are_null_while_no_time_resource_is_held() -> None:
    # July: daylight saving is in effect by the held resource. Once rediscovery releases it,
    # local_time, tz_offset and dst_offset go null; dst_active is a boolean in the contract
    # (the only field of the three-plus-one not marked "or null"), and with no dstOffset held
    # none is applied, so it reads false.
    clock = HandClock(wall=1_720_000_000.0)
    tb = Timebase(clock)
    tb.set_structure("/tm", [FsaLink("/f", None, "/tm")])
    tb.observe(eastern(1_720_000_100), "/tm", clock.wall(), clock.monotonic())
    assert time_reading(tb).dst_active is True
    tb.release()  # rediscovery began
    reading = time_reading(tb)
    assert isinstance(reading, TimeReading)
    assert reading.source == "server" and reading.current_time == 1_720_000_101
    assert (reading.local_time, reading.tz_offset, reading.dst_offset) == (None, None, None)
    assert reading.dst_active is False
    assert reading.offset_seconds == 100.5  # the offset survives
    assert (reading.quality, reading.href) == (7, "/tm")


def test_current_time_follows_the_local_clock_it_is_applied_to() -> None:
    # The contract: the offset applied to the local clock. Stepping that clock moves the
    # reading with it until the next observation (the reason callers apply a deadband).
    clock = HandClock(wall=1_720_000_000.0)
    tb = Timebase(clock)
    tb.set_structure("/tm", [])
    tb.observe(eastern(1_720_000_100), "/tm", clock.wall(), clock.monotonic())
    clock.step_wall(100.5)  # a caller corrected the device clock by the offset
    reading = time_reading(tb)
    assert reading.current_time == 1_720_000_201
    assert reading.age_seconds == 0.0


def test_round_half_up() -> None:
    assert [round_half_up(v) for v in (0.5, 1.5, 2.5, -0.5, 2.49)] == [1, 2, 3, 0, 2]


INT64 = st.integers(-(2**63), 2**63 - 1)
INT32 = st.integers(-(2**31), 2**31 - 1)


@settings(max_examples=400, deadline=None)
@given(
    current=st.one_of(INT64, st.integers(946_000_000, 4_103_000_000)),
    tz=st.one_of(INT32, st.integers(-50_500, 50_500)),
    dst=st.one_of(INT32, st.integers(-14_500, 14_500)),
    start=INT64,
    end=INT64,
    wall=st.sampled_from([0.0, 1_720_000_000.0]),  # a device clock never set, and a good one
)
def test_no_time_a_head_end_sends_breaks_the_reading(
    current: int, tz: int, dst: int, start: int, end: int, wall: float
) -> None:
    # Issue 9, item 12: whatever integers a Time resource carries, it is refused as a failed
    # observation or it gives a reading that serializes, with times between 2000 and 2100.
    body = (
        '<Time xmlns="urn:ieee:std:2030.5:ns">'
        f"<currentTime>{current}</currentTime><dstEndTime>{end}</dstEndTime>"
        f"<dstOffset>{dst}</dstOffset><dstStartTime>{start}</dstStartTime>"
        f"<quality>3</quality><tzOffset>{tz}</tzOffset></Time>"
    ).encode()
    try:
        t = parse_time(body, "/tm")
    except ResourceError:
        return
    clock = HandClock(wall=wall)
    tb = Timebase(clock)
    tb.set_structure("/tm", [])
    tb.observe(t, "/tm", clock.wall(), clock.monotonic())
    reading = time_reading(tb)
    assert isinstance(reading, TimeReading)
    orjson.dumps(reading)
    assert 946_684_800 <= reading.current_time <= 4_102_444_800
    day = 86_400
    assert reading.local_time is not None
    assert 946_684_800 - day <= reading.local_time <= 4_102_444_800 + day
