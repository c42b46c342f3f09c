"""The master's exchange rules alone, sans-IO (gridwire.master.exchange): response fragments
are laid out by hand as frames from the outstation (tests/master/wire.py, the tests' own
CRC), read by the association, and handed to the rules with a ``now`` the test chooses.

A response's application control octet (IEEE 1815-2012 clause 4.2.2.4): FIR 0x80, FIN 0x40,
CON 0x20, UNS 0x10, then the sequence number in the low four bits; the function is 0x81
(RESPONSE) or 0x82 (UNSOLICITED_RESPONSE); IIN1 and IIN2 follow. Each fragment here travels
in one transport segment, header 0xC0 | transport sequence (FIR|FIN).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master import gate
from gridwire.master.association import Association, Fragment
from gridwire.master.exchange import RETRIED, ExchangeRules, Note, Reason, Transaction
from tests.master.wire import from_outstation

READ = FunctionCode.READ


def fragment(octets: str, tr_seq: int = 0) -> Fragment:
    """The application fragment ``octets`` (hex) as the association reads it off the wire."""
    frame = from_outstation(bytes((0xC0 | tr_seq,)) + bytes.fromhex(octets))
    received = Association().receive(frame)
    assert received.discarded == [] and len(received.fragments) == 1
    return received.fragments[0]


def read(
    seq: int = 0, *, timeout: float = 5.0, retries: int = 0
) -> tuple[ExchangeRules, Transaction]:
    rules = ExchangeRules(confirms=True)
    transaction = rules.start(READ, seq, timeout=timeout, read_retries=retries)
    transaction.sent(100.0)
    return rules, transaction


def test_one_fragment_completes_the_read() -> None:
    rules, transaction = read(3)
    # C3: FIR|FIN, seq 3; 81 RESPONSE; IIN 00 00.
    verdict = rules.receive(fragment("c3 81 00 00"), 100.5)
    assert (verdict.taken, verdict.complete, verdict.confirm, verdict.notes) == (
        True,
        True,
        False,
        (),
    )
    assert transaction.outcome == "complete" and transaction.deadline is None
    # Anything after the end answers no request.
    assert rules.receive(fragment("c3 81 00 00"), 100.6).reason is Reason.NO_REQUEST


def test_a_response_with_another_sequence_is_named_and_not_taken() -> None:
    rules, transaction = read(3)
    # C5: FIR|FIN but seq 5, while 3 is expected.
    verdict = rules.receive(fragment("c5 81 00 00"), 100.5)
    assert (verdict.taken, verdict.reason, verdict.confirm) == (False, Reason.WRONG_SEQUENCE, False)
    assert transaction.notes == ["wrong_sequence: 5, expected 3"]
    assert transaction.outcome is None and transaction.fragments == 0
    # The one with seq 3 still completes it.
    assert rules.receive(fragment("c3 81 00 00"), 100.6).complete


def test_a_fragment_with_con_and_the_wrong_sequence_is_not_confirmed() -> None:
    rules, _ = read(0)
    # E1: FIR|FIN|CON seq 1, for a request numbered 0.
    verdict = rules.receive(fragment("e1 81 00 00"), 100.5)
    assert (verdict.taken, verdict.confirm) == (False, False)


def test_a_multi_fragment_response_follows_fir_fin_and_sequence() -> None:
    rules, transaction = read(14, timeout=2.0)
    # AE: FIR|CON seq 14 (not FIN): taken, confirmed, and the deadline runs from it.
    first = rules.receive(fragment("ae 81 00 00"), 101.0)
    assert (first.taken, first.confirm, first.complete, first.notes) == (True, True, False, ())
    assert transaction.deadline == 103.0
    # The next must carry 15: 2F (CON seq 15, neither FIR nor FIN).
    middle = rules.receive(fragment("2f 81 00 00", 1), 102.5)
    assert (middle.taken, middle.confirm, middle.complete) == (True, True, False)
    assert transaction.deadline == 104.5
    # Then 0 (the sequence wraps modulo 16): 60, FIN|CON seq 0; a repeat of 15 is refused.
    assert rules.receive(fragment("2f 81 00 00", 2), 103.0).reason is Reason.WRONG_SEQUENCE
    last = rules.receive(fragment("60 81 00 00", 3), 103.5)
    assert (last.taken, last.confirm, last.complete) == (True, True, True)
    assert (transaction.outcome, transaction.fragments) == ("complete", 3)
    assert transaction.notes == ["wrong_sequence: 15, expected 0"]


def test_fir_fin_con_anomalies_are_named_on_fragments_taken_in() -> None:
    rules, transaction = read(2)
    # 02: seq 2 with neither FIR, FIN nor CON: the first fragment lacks FIR, and a fragment
    # before the last asks no confirmation.
    verdict = rules.receive(fragment("02 81 00 00"), 100.1)
    assert verdict.taken and not verdict.confirm
    assert verdict.notes == (Note.FIRST_WITHOUT_FIR, Note.MORE_WITHOUT_CON)
    # D3: FIR|FIN|UNS seq 3 on a RESPONSE: a later fragment says it is first, and carries UNS.
    verdict = rules.receive(fragment("d3 81 00 00", 1), 100.2)
    assert verdict.taken and verdict.complete
    assert verdict.notes == (Note.FIR_AFTER_FIRST, Note.UNS_ON_RESPONSE)
    assert transaction.notes == [
        "first_without_fir",
        "more_without_con",
        "fir_after_first",
        "uns_on_response",
    ]


def test_con_is_confirmed_only_when_the_master_confirms() -> None:
    rules = ExchangeRules(confirms=False)
    rules.start(READ, 0, timeout=1.0).sent(0.0)
    verdict = rules.receive(fragment("e0 81 00 00"), 0.5)  # FIR|FIN|CON seq 0
    assert (verdict.taken, verdict.complete, verdict.confirm) == (True, True, False)


def test_an_unsolicited_response_belongs_to_no_request() -> None:
    rules, transaction = read(4)
    # F7: FIR|FIN|CON|UNS seq 7, function 82: taken and confirmed; the read still waits.
    verdict = rules.receive(fragment("f7 82 00 00"), 100.1)
    assert (verdict.taken, verdict.confirm, verdict.complete, verdict.notes) == (
        True,
        True,
        False,
        (),
    )
    assert transaction.fragments == 0 and transaction.outcome is None
    # E7: the same without UNS, and 97 (FIR|UNS, no FIN): named, taken all the same.
    assert rules.receive(fragment("e7 82 00 00"), 100.2).notes == (Note.UNSOLICITED_WITHOUT_UNS,)
    assert rules.receive(fragment("97 82 00 00"), 100.3).notes == (Note.UNSOLICITED_NOT_FIR_FIN,)
    # Without a request in flight, an unsolicited response is taken; a response is not.
    rules.end(transaction)
    assert rules.receive(fragment("f8 82 00 00"), 100.4).taken
    assert rules.receive(fragment("c4 81 00 00"), 100.4).reason is Reason.NO_REQUEST


def test_the_deadline_ends_the_exchange_timeout() -> None:
    _, transaction = read(0, timeout=2.0)
    assert transaction.deadline == 102.0
    assert transaction.poll(101.999) == "wait"
    assert transaction.poll(102.0) == "ended"
    assert (transaction.outcome, transaction.retries, transaction.deadline) == ("timeout", 0, None)


def test_the_deadline_runs_from_the_last_fragment() -> None:
    rules, transaction = read(0, timeout=2.0)
    rules.receive(fragment("a0 81 00 00"), 101.5)  # FIR|CON seq 0, not FIN
    assert transaction.poll(102.0) == "wait"  # 2 s from the request, not from the fragment
    assert transaction.poll(103.5) == "ended"
    assert (transaction.outcome, transaction.fragments) == ("timeout", 1)


def test_a_read_that_received_nothing_is_sent_again_as_retries_allow() -> None:
    _, transaction = read(9, timeout=1.0, retries=2)
    assert transaction.poll(101.0) == "retry"
    transaction.sent(101.0)  # sent again (same sequence number 9): the deadline starts again
    assert transaction.deadline == 102.0 and transaction.seq == 9
    assert transaction.poll(102.0) == "retry"
    transaction.sent(102.0)
    assert transaction.poll(103.0) == "ended"
    assert (transaction.outcome, transaction.retries) == ("timeout", 2)
    # Not when it may not (the connection is gone).
    _, other = read(0, timeout=1.0, retries=2)
    assert other.poll(101.0, can_retry=False) == "ended" and other.retries == 0


def test_a_read_answered_in_part_is_not_sent_again() -> None:
    rules, transaction = read(1, timeout=1.0, retries=3)
    rules.receive(fragment("a1 81 00 00"), 100.5)  # FIR|CON seq 1, the rest never comes
    assert transaction.poll(101.5) == "ended"
    assert (transaction.outcome, transaction.retries) == ("timeout", 0)


@pytest.mark.parametrize("function", [f for f in FunctionCode if f.expects_response and f != READ])
def test_no_other_request_is_ever_sent_again(function: FunctionCode) -> None:
    # Every request that commands (SELECT, OPERATE, WRITE, the restarts...) among them.
    transaction = Transaction(function, 0, timeout=1.0, read_retries=100)
    transaction.sent(0.0)
    assert transaction.poll(1.0) == "ended"
    assert (transaction.outcome, transaction.retries) == ("timeout", 0)


def test_the_functions_sent_again_command_nothing() -> None:
    assert set(RETRIED) == {READ} and not any(gate.commands(f) for f in RETRIED)


def test_requests_that_take_no_answer_end_sent() -> None:
    for function, broadcast in ((FunctionCode.DIRECT_OPERATE_NR, None), (READ, 0xFFFF)):
        rules = ExchangeRules()
        transaction = rules.start(function, 0, timeout=1.0, broadcast=broadcast)
        assert not transaction.answered
        transaction.sent(0.0)
        assert (transaction.outcome, transaction.deadline) == ("sent", None)
        assert rules.receive(fragment("c0 81 00 00"), 0.1).reason is Reason.NO_REQUEST


def test_abandoned_from_outside_keeps_an_earlier_end() -> None:
    rules, transaction = read(0)
    transaction.abandon()
    assert transaction.outcome == "abandoned" and transaction.poll(1e9) == "ended"
    assert rules.receive(fragment("c0 81 00 00"), 100.1).reason is Reason.NO_REQUEST
    rules, transaction = read(0)
    rules.receive(fragment("c0 81 00 00"), 100.1)
    transaction.abandon()
    assert transaction.outcome == "complete"


@given(st.lists(st.tuples(st.integers(0, 0xFF), st.booleans()), max_size=40))
def test_any_fragments_end_it_at_most_once_and_only_by_fin(
    fragments: list[tuple[int, bool]],
) -> None:
    """Whatever control octets arrive (solicited or not), the rules never raise, take in
    fragments only in sequence, and complete exactly on the FIN of one taken in."""
    rules, transaction = read(5, timeout=1.0)
    completed = 0
    expected = 5
    for n, (control, unsolicited) in enumerate(fragments):
        function = "82" if unsolicited else "81"
        item = fragment(f"{control:02x} {function} 00 00", n % 64)
        was_over = transaction.ended
        verdict = rules.receive(item, 100.0 + n / 100)
        if unsolicited:
            assert verdict.taken and not verdict.complete
            continue
        if was_over:
            assert verdict.reason is Reason.NO_REQUEST
            continue
        assert verdict.taken == (control & 0x0F == expected)
        if verdict.taken:
            expected = (expected + 1) & 0x0F
            assert verdict.complete == bool(control & 0x40)
            assert verdict.confirm == bool(control & 0x20)
        completed += verdict.complete
    assert completed <= 1 and (completed == 1) == (transaction.outcome == "complete")
