"""The timebase alone: offsets per scope, ages on the monotonic clock, staleness fallback and
its single warning, rediscovery, and the threshold. A hand-driven clock makes every number
here exact."""

from __future__ import annotations

import logging

import pytest

from gridwire.sep2.resources import Time
from gridwire.sep2.timebase import FsaLink, Timebase


class HandClock:
    def __init__(self, wall: float = 1_700_000_000.0, monotonic: float = 500.0) -> None:
        self._wall = wall
        self._monotonic = monotonic

    def wall(self) -> float:
        return self._wall

    def monotonic(self) -> float:
        return self._monotonic

    def advance(self, seconds: float) -> None:
        self._wall += seconds
        self._monotonic += seconds

    def step_wall(self, seconds: float) -> None:
        self._wall += seconds


def time_at(current: int, href: str = "/tm", quality: int = 3) -> Time:
    return Time(href, None, current, 0, 0, 0, None, quality, 0)


FSA_A, FSA_B = "/edev/2/fsa/0", "/edev/2/fsa/1"
A_TM = "/edev/2/fsa/0/tm"


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def timebase(clock: HandClock) -> Timebase:
    tb = Timebase(clock)
    tb.set_structure("/tm", [FsaLink(FSA_A, "A", A_TM), FsaLink(FSA_B, "B", "/tm")])
    return tb


def observe(tb: Timebase, clock: HandClock, href: str, current: int) -> None:
    tb.observe(time_at(current, href), href, clock.wall(), clock.monotonic())


def test_offset_is_server_time_at_mid_second_minus_local_receipt(
    timebase: Timebase, clock: HandClock
) -> None:
    # The head-end truncates to whole seconds: 1_700_003_600 means [..600, ..601), taken at
    # ..600.5. Local receipt at 1_700_000_000.0, so the offset is 3600.5.
    observe(timebase, clock, "/tm", 1_700_003_600)
    chosen = timebase.effective()
    assert chosen is not None and chosen.offset_seconds == 3600.5
    assert timebase.now() == clock.wall() + 3600.5


def test_each_scope_is_scheduled_on_its_own_offset(timebase: Timebase, clock: HandClock) -> None:
    observe(timebase, clock, "/tm", 1_700_003_600)  # global and FSA B (links to /tm): +3600.5
    observe(timebase, clock, A_TM, 1_699_999_880)  # FSA A: 120 s behind, -119.5
    assert timebase.now(FSA_A) == clock.wall() - 119.5
    assert timebase.now(FSA_B) == clock.wall() + 3600.5
    assert timebase.now("/not/an/fsa") == clock.wall() + 3600.5
    status = timebase.status()
    assert status.global_ is not None and status.global_.offset_seconds == 3600.5
    assert [(e.fsa, e.offset_seconds, e.href) for e in status.per_fsa] == [
        (FSA_A, -119.5, A_TM),
        (FSA_B, 3600.5, "/tm"),
    ]


def test_stepping_the_wall_clock_changes_no_age(timebase: Timebase, clock: HandClock) -> None:
    observe(timebase, clock, "/tm", 1_700_000_100)
    clock.advance(30)
    clock.step_wall(-86_400)  # someone sets the device clock back a day
    status = timebase.status()
    assert status.global_ is not None and status.global_.age_seconds == 30.0
    assert status.global_.offset_seconds == 100.5  # as measured; not re-derived


def test_threshold_is_three_poll_intervals_never_below_an_hour(timebase: Timebase) -> None:
    assert timebase.fsa_stale_seconds == 3600  # 3 x 900 (the default) = 2700, raised to 3600
    timebase.set_time_poll_interval(300)
    assert timebase.fsa_stale_seconds == 3600  # 900 -> 3600
    timebase.set_time_poll_interval(1800)
    assert timebase.fsa_stale_seconds == 5400
    assert Timebase(fsa_stale_seconds=42).fsa_stale_seconds == 42


def test_stale_fsa_yields_to_a_newer_global_with_one_warning(
    timebase: Timebase, clock: HandClock, caplog: pytest.LogCaptureFixture
) -> None:
    observe(timebase, clock, "/tm", 1_700_000_010)
    observe(timebase, clock, A_TM, 1_700_000_020)  # FSA A: 20.5
    clock.advance(3000)
    observe(timebase, clock, "/tm", 1_700_003_010)  # global refreshed; A's own not: 10.5
    clock.advance(601)  # A's observation is now 3601 s old, the global one 601 s
    caplog.set_level(logging.WARNING, "gridwire.sep2.timebase")
    chosen = timebase.effective(FSA_A)
    assert chosen is not None and chosen.bypassed and chosen.scope == "global"
    assert chosen.offset_seconds == 10.5
    assert [e.stale for e in timebase.status().per_fsa] == [True, False]
    timebase.effective(FSA_A)
    timebase.review()
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1
    assert FSA_A in warnings[0] and A_TM in warnings[0]
    # A refresh makes it fresh again; its own offset is used.
    observe(timebase, clock, A_TM, 1_700_003_631)
    fresh = timebase.effective(FSA_A)
    assert fresh is not None and not fresh.bypassed and fresh.offset_seconds == 30.5
    # Going stale a second time says nothing more: the warning is the first time only.
    clock.advance(100)
    observe(timebase, clock, "/tm", 1_700_003_740)
    clock.advance(3601)
    again = timebase.effective(FSA_A)
    assert again is not None and again.bypassed
    assert len(caplog.records) == 1


def test_never_falls_back_to_a_staler_global(timebase: Timebase, clock: HandClock) -> None:
    observe(timebase, clock, "/tm", 1_700_000_010)
    clock.advance(10)
    observe(timebase, clock, A_TM, 1_700_000_030)
    clock.advance(10_000)  # both old; the global is older still
    chosen = timebase.effective(FSA_A)
    assert chosen is not None and not chosen.bypassed and chosen.scope == FSA_A
    assert [e.stale for e in timebase.status().per_fsa] == [False, False]


def test_fsa_with_nothing_to_fall_back_to_keeps_its_own(clock: HandClock) -> None:
    tb = Timebase(clock)
    tb.set_structure(None, [FsaLink(FSA_A, None, A_TM)])  # TimeLink only on the FSA
    observe(tb, clock, A_TM, 1_700_000_050)
    clock.advance(100_000)
    chosen = tb.effective(FSA_A)
    assert chosen is not None and chosen.scope == FSA_A and chosen.offset_seconds == 50.5
    assert tb.now() == clock.wall()  # global events: nothing global observed, local clock
    held = tb.held()
    assert held is not None and held.observation.href == A_TM  # /time still has a reading


def test_fsa_without_time_of_its_own_uses_the_global(timebase: Timebase, clock: HandClock) -> None:
    observe(timebase, clock, "/tm", 1_700_000_100)
    observe(timebase, clock, A_TM, 1_700_000_000)
    timebase.absent(A_TM)  # the FSA's Time answered 404
    chosen = timebase.effective(FSA_A)
    assert chosen is not None and chosen.scope == "global" and not chosen.bypassed
    entry = timebase.status().per_fsa[0]
    assert (entry.offset_seconds, entry.age_seconds, entry.stale) == (None, None, False)


def test_offsets_survive_rediscovery_and_withdrawn_fsas_are_forgotten(
    timebase: Timebase, clock: HandClock
) -> None:
    observe(timebase, clock, "/tm", 1_700_000_100)
    observe(timebase, clock, A_TM, 1_700_000_200)
    timebase.release()
    held = timebase.held()
    assert held is not None and not held.holding  # offset kept, resource not held
    timebase.set_structure("/tm", [FsaLink(FSA_A, "A", A_TM)])  # B withdrawn
    assert [e.fsa for e in timebase.status().per_fsa] == [FSA_A]
    chosen = timebase.effective(FSA_A)
    assert chosen is not None and chosen.offset_seconds == 200.5
    assert timebase.time_hrefs() == ["/tm", A_TM]
    observe(timebase, clock, "/tm", 1_700_000_100)
    held = timebase.held()
    assert held is not None and held.holding


def test_disabled_timebase_schedules_on_the_local_clock_but_keeps_observing(
    timebase: Timebase, clock: HandClock
) -> None:
    timebase.enabled = False
    observe(timebase, clock, "/tm", 1_700_003_600)
    assert timebase.now() == clock.wall()
    held = timebase.held()
    assert held is not None and held.observation.offset_seconds == 3600.5


def test_reading_prefers_global_unless_it_is_stale_and_an_fsa_is_newer(
    timebase: Timebase, clock: HandClock
) -> None:
    assert timebase.held() is None
    observe(timebase, clock, "/tm", 1_700_000_100)
    observe(timebase, clock, A_TM, 1_700_000_200)
    held = timebase.held()
    assert held is not None and held.observation.href == "/tm"
    clock.advance(4000)
    observe(timebase, clock, A_TM, 1_700_004_200)
    held = timebase.held()
    assert held is not None and held.observation.href == A_TM


def test_scopes_sharing_a_time_resource(timebase: Timebase) -> None:
    assert timebase.scopes_of("/tm") == ["global", FSA_B]
    assert timebase.scopes_of(A_TM) == [FSA_A]


def test_stale_warning_is_once_per_scope_not_once_in_all(
    clock: HandClock, caplog: pytest.LogCaptureFixture
) -> None:
    # Two FSAs with Time resources of their own both go stale behind a refreshed global: each
    # is bypassed, and each gets its own single warning naming it and its own Time href.
    b_tm = "/edev/2/fsa/1/tm"
    tb = Timebase(clock)
    tb.set_structure("/tm", [FsaLink(FSA_A, "A", A_TM), FsaLink(FSA_B, "B", b_tm)])
    observe(tb, clock, A_TM, 1_700_000_000)
    observe(tb, clock, b_tm, 1_700_000_000)
    clock.advance(3601)
    observe(tb, clock, "/tm", 1_700_003_601)
    caplog.set_level(logging.WARNING, "gridwire.sep2.timebase")
    for _ in range(3):
        tb.review()
        for fsa in (FSA_A, FSA_B):
            chosen = tb.effective(fsa)
            assert chosen is not None and chosen.bypassed
    warnings = sorted(r.getMessage() for r in caplog.records)
    assert len(warnings) == 2
    assert FSA_A in warnings[0] and A_TM in warnings[0] and b_tm not in warnings[0]
    assert FSA_B in warnings[1] and b_tm in warnings[1] and A_TM not in warnings[1]


def test_a_reading_once_available_is_never_lost(clock: HandClock) -> None:
    # TimeLink only on an FSA; its Time then answers 404, then the FSA is withdrawn. No scope
    # holds an observation any more, but the contract has no way back to "unavailable": the
    # latest observation keeps the reading (not held, so its time zone fields go null).
    tb = Timebase(clock)
    tb.set_structure(None, [FsaLink(FSA_A, "A", A_TM)])
    assert tb.held() is None
    observe(tb, clock, A_TM, 1_700_000_050)
    tb.absent(A_TM)
    held = tb.held()
    assert held is not None and held.observation.offset_seconds == 50.5 and not held.holding
    observe(tb, clock, A_TM, 1_700_000_070)
    tb.set_structure(None, [])  # withdrawn: forgotten as a scope, and no longer held
    assert tb.status().per_fsa == []
    held = tb.held()
    assert held is not None and held.observation.offset_seconds == 70.5 and not held.holding
    assert tb.now(FSA_A) == clock.wall()  # scheduling has no scope left to use it
