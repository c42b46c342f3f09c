"""The gateway's scheduling, sans-IO: literal DERControl XML as IEEE 2030.5 shapes it, times
worked out by hand, and the Response sequences CSIP-AUS's client test ALL-18 (Control
Responses, cactus-test-definitions 1.18.2) expects: 1,2,3 for an event that runs; 1,2,6
cancelled after start; 1,6 cancelled before; 1,7 superseded."""

from __future__ import annotations

from gridwire.gateway.parsing import parse_default_control, parse_der_control_list
from gridwire.gateway.resources import DerProgram, ProgramSet
from gridwire.gateway.schedule import Scheduler, draw

NS = "urn:ieee:std:2030.5:ns"
T0 = 1_767_225_600  # 2026-01-01T00:00:00Z


def control(
    mrid: str,
    start: int,
    duration: int,
    *,
    created: int = T0 - 100,
    status: int = 0,
    base: str = "<opModMaxLimW>5000</opModMaxLimW>",
    rs: int = 0,
    rd: int = 0,
    required: str = "03",
) -> str:
    return (
        f'<DERControl href="/derp/0/derc/{mrid}" replyTo="/rsp" responseRequired="{required}">'
        f"<mRID>{mrid}</mRID><creationTime>{created}</creationTime>"
        f"<EventStatus><currentStatus>{status}</currentStatus><dateTime>{created}</dateTime>"
        "<potentiallySuperseded>false</potentiallySuperseded></EventStatus>"
        f"<interval><duration>{duration}</duration><start>{start}</start></interval>"
        f"<randomizeDuration>{rd}</randomizeDuration><randomizeStart>{rs}</randomizeStart>"
        f"<DERControlBase>{base}</DERControlBase></DERControl>"
    )


def program(href: str, primacy: int, *controls: str, default: str | None = None) -> ProgramSet:
    body = f'<DERControlList xmlns="{NS}" all="{len(controls)}" results="{len(controls)}">'
    parsed = parse_der_control_list((body + "".join(controls) + "</DERControlList>").encode())
    dflt = None
    if default is not None:
        dflt = parse_default_control(
            f'<DefaultDERControl xmlns="{NS}" href="{href}/dderc"><mRID>D0</mRID>'
            f"<DERControlBase>{default}</DERControlBase></DefaultDERControl>".encode()
        )
    derp = DerProgram(href, None, None, primacy, None, None, None)
    return ProgramSet(derp, parsed.items, dflt)


def run(scheduler: Scheduler, sets: list[ProgramSet], at: float) -> list[tuple[str, int]]:
    decision = scheduler.update(sets, lambda fsa: at)
    return [(r.mrid, r.status) for r in decision.responses]


def test_an_event_that_runs_answers_1_2_3_each_once() -> None:
    s = Scheduler()
    sets = [program("/derp/0", 1, control("A1", T0 + 60, 120))]
    assert run(s, sets, T0) == [("A1", 1)]
    assert s.update(sets, lambda _: T0).targets == {}
    assert run(s, sets, T0 + 59.9) == []
    assert run(s, sets, T0 + 60) == [("A1", 2)]
    decision = s.update(sets, lambda _: T0 + 100)
    assert decision.targets["opModMaxLimW"].value == 50.0  # 5000 hundredths of a percent
    assert decision.next_change == 80.0  # ends at T0 + 180
    assert run(s, sets, T0 + 180) == [("A1", 3)]
    assert run(s, sets, T0 + 500) == []


def test_cancelled_after_start_1_2_6_and_before_start_1_6() -> None:
    s = Scheduler()
    assert run(s, [program("/p", 1, control("B1", T0, 600), control("B2", T0 + 900, 60))], T0) == [
        ("B1", 1),
        ("B2", 1),
        ("B1", 2),
    ]
    cancelled = [
        program("/p", 1, control("B1", T0, 600, status=2), control("B2", T0 + 900, 60, status=2))
    ]
    assert run(s, cancelled, T0 + 10) == [("B1", 6), ("B2", 6)]
    assert s.update(cancelled, lambda _: T0 + 11).targets == {}
    # An event gone from its list is cancelled too.
    s2 = Scheduler()
    run(s2, [program("/p", 1, control("B3", T0, 600))], T0)
    assert run(s2, [program("/p", 1)], T0 + 1) == [("B3", 6)]


def test_superseded_within_a_program_by_later_creation_time_answers_1_7() -> None:
    # ALL-18 (q..s): DERC4 10 min ahead for 600 s, then DERC5 at the same start for 60 s.
    s = Scheduler()
    first = control("C4", T0 + 600, 600, created=T0)
    assert run(s, [program("/p", 1, first)], T0) == [("C4", 1)]
    second = control("C5", T0 + 600, 60, created=T0 + 5, base="<opModMaxLimW>0</opModMaxLimW>")
    assert run(s, [program("/p", 1, first, second)], T0 + 5) == [("C5", 1), ("C4", 7)]
    assert run(s, [program("/p", 1, first, second)], T0 + 600) == [("C5", 2)]
    assert run(s, [program("/p", 1, first, second)], T0 + 660) == [("C5", 3)]


def test_primacy_lower_wins_and_per_mode_superseding() -> None:
    s = Scheduler()
    low = program(
        "/low",
        2,
        control(
            "D2", T0, 600, base="<opModMaxLimW>8000</opModMaxLimW><opModConnect>true</opModConnect>"
        ),
    )
    high = program(
        "/high",
        1,
        control("D1", T0, 600, created=T0 - 500, base="<opModMaxLimW>3000</opModMaxLimW>"),
    )
    responses = run(s, [low, high], T0)
    # P1 (primacy 1) controls only one of P2's two modes: both run, per mode the better holds.
    assert sorted(responses) == [("D1", 1), ("D1", 2), ("D2", 1), ("D2", 2)]
    targets = s.update([low, high], lambda _: T0 + 1).targets
    assert (targets["opModMaxLimW"].value, targets["opModMaxLimW"].source) == (30.0, "D1")
    assert (targets["opModConnect"].value, targets["opModConnect"].source) == (True, "D2")
    # A better event controlling every mode of a worse one supersedes it, whatever created it.
    s2 = Scheduler()
    worse = program("/low", 2, control("0E", T0 + 10, 60, created=T0))
    better = program("/high", 1, control("0B", T0 + 50, 60, created=T0 - 900))
    assert sorted(run(s2, [worse, better], T0)) == [("0B", 1), ("0E", 1), ("0E", 7)]


def test_randomization_is_drawn_once_per_event_seeded_and_kept() -> None:
    s = Scheduler(seed=42)
    sets = [program("/p", 1, control("A7", T0 + 100, 60, rs=30, rd=-20))]
    run(s, sets, T0)
    record = s.records["A7"]
    assert (record.start_draw, record.duration_draw) == (draw(42, "A7", 30), draw(42, "A7", -20))
    assert 0 <= record.start_draw <= 30 and -20 <= record.duration_draw <= 0
    start, end = T0 + 100 + record.start_draw, T0 + 160 + record.duration_draw
    assert run(s, sets, start - 0.01) == []
    assert run(s, sets, start) == [("A7", 2)]
    assert s.records["A7"].start_draw == record.start_draw  # not drawn again
    assert run(s, sets, end) == [("A7", 3)]
    assert Scheduler(seed=43).update(sets, lambda _: T0).responses  # another seed...
    assert draw(43, "A7", 30) != draw(42, "A7", 30)  # ...another draw


def test_back_to_back_hands_over_with_no_gap_and_default_after() -> None:
    s = Scheduler()
    sets = [
        program(
            "/p",
            1,
            control("E1", T0, 60, base="<opModMaxLimW>4000</opModMaxLimW>"),
            control("E2", T0 + 60, 60, base="<opModMaxLimW>6000</opModMaxLimW>"),
            default="<opModMaxLimW>10000</opModMaxLimW>",
        )
    ]
    assert s.update(sets, lambda _: T0 - 1).targets["opModMaxLimW"].source == "default"
    assert s.update(sets, lambda _: T0 + 59.999).targets["opModMaxLimW"].value == 40.0
    handover = s.update(sets, lambda _: T0 + 60)
    assert [(r.mrid, r.status) for r in handover.responses] == [("E1", 3), ("E2", 2)]
    assert handover.targets["opModMaxLimW"].value == 60.0
    after = s.update(sets, lambda _: T0 + 120).targets["opModMaxLimW"]
    assert (after.value, after.source) == (100.0, "default")


def test_default_of_the_best_primacy_program() -> None:
    s = Scheduler()
    sets = [
        program("/a", 5, default="<opModMaxLimW>1000</opModMaxLimW>"),
        program("/b", 3, default="<opModMaxLimW>2000</opModMaxLimW>"),
    ]
    target = s.update(sets, lambda _: T0).targets["opModMaxLimW"]
    assert (target.value, target.program) == (20.0, "/b")


def test_expired_invalid_and_not_applicable_are_answered_once() -> None:
    s = Scheduler()
    sets = [
        program(
            "/p",
            1,
            control("E5", T0 - 600, 300),  # over before it was received
            control("E6", T0, 60, base="<opModMaxLimW>lots</opModMaxLimW>"),
            control("E7", T0, 60, base="<opModFreqWatt href='/dc/1'/>"),
        )
    ]
    supported = lambda mode: mode != "opModFreqWatt"  # noqa: E731
    first = s.update(sets, lambda _: T0, supported)
    assert [(r.mrid, r.status) for r in first.responses] == [("E5", 254), ("E6", 253), ("E7", 252)]
    assert s.update(sets, lambda _: T0 + 1, supported).responses == []
    assert first.targets == {}


def test_responses_follow_response_required() -> None:
    s = Scheduler()
    sets = [
        program(
            "/p",
            1,
            control("C0", T0, 60, required="00"),
            control("C1", T0, 60, required="01", base="<opModConnect>false</opModConnect>"),
        )
    ]
    assert run(s, sets, T0) == [("C1", 1)]
    assert run(s, sets, T0 + 60) == []


def test_cancelled_with_randomization_ends_within_randomize_duration() -> None:
    s = Scheduler(seed=7)
    sets = [program("/p", 1, control("AB", T0, 600, rd=30))]
    run(s, sets, T0)
    cancelled = [program("/p", 1, control("AB", T0, 600, rd=30, status=3))]
    assert run(s, cancelled, T0 + 100) == []
    cancel_at = s.records["AB"].cancel_at
    assert cancel_at is not None and T0 + 100 <= cancel_at <= T0 + 130
    assert run(s, cancelled, cancel_at) == [("AB", 6)]


def test_a_control_with_a_bad_mrid_is_answered_invalid_and_the_others_run() -> None:
    s = Scheduler()
    sets = [program("/p", 1, control("NOTHEX", T0, 60), control("AA", T0, 60))]
    assert run(s, sets, T0) == [("NOTHEX", 253), ("AA", 1), ("AA", 2)]
