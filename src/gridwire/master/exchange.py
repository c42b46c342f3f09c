"""The application-layer rules of the master's exchanges, sans-IO: fragments and ``now`` in,
decisions and a deadline out.

The session (asyncio) sends and receives; what a response fragment means for the request in
flight is decided here, with no timer, socket or clock of its own. ``now`` is seconds on
whatever monotonic clock the caller uses for every call (the session uses its host clock's,
:meth:`gridwire.process.clock.Clock.monotonic`).

:class:`Transaction` is one request and its answer (IEEE 1815-2012 clause 4):

- It waits for an answer only when the function asks for one and the request went to the
  outstation's own address; otherwise it ends ``sent`` the moment it has left.
- A response fragment is taken in when it carries the sequence number expected: the
  request's for the first, one more (modulo 16) than the previous for each further one. One
  with another number is not taken (:attr:`Reason.WRONG_SEQUENCE`), nor is any fragment once
  the transaction has ended (:attr:`Reason.NO_REQUEST`).
- The fragment with FIN ends it ``complete``. FIR, FIN, CON and UNS that break the rules of a
  solicited response are named (:class:`Note`) on a fragment that is taken in all the same:
  the sequence number alone decides, as it always has here.
- The deadline is ``response_timeout`` from the request leaving and from each fragment taken
  in, so a long response never times out while fragments keep coming. At the deadline a
  READ that has received nothing is sent again with the same sequence number while
  ``read_retries`` allow; any other request ends ``timeout``. Only READ is ever repeated: no
  request that commands is sent twice, whatever the settings.
- ``abandoned`` ends it from outside (the connection ended, the caller gave up).

:class:`ExchangeRules` routes each fragment: an unsolicited response to the caller (it
belongs to no request), a solicited one to the transaction in flight, or to nobody. It also
says whether to confirm a fragment: when it asks (CON) and the master confirms, and for a
solicited one only when it is taken in.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from gridwire.dnp3.app.control import UNS
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master import gate
from gridwire.master.association import Fragment
from gridwire.master.records import Outcome

Step = Literal["wait", "retry", "ended"]
"""What :meth:`Transaction.poll` says: keep waiting, send the request again now, or ended."""

RETRIED: Final = frozenset({FunctionCode.READ})
"""The only functions sent again after a timeout. None of them commands (checked below)."""
if any(gate.commands(function) for function in RETRIED):  # pragma: no cover - a guard
    raise AssertionError("a request that commands must never be sent twice")


class Reason(StrEnum):
    """Why a response fragment was not taken in."""

    NO_REQUEST = "no_request"  # no request is waiting for an answer
    WRONG_SEQUENCE = "wrong_sequence"  # another sequence number than the one expected


class Note(StrEnum):
    """Rules a fragment taken in breaks (it is taken in all the same)."""

    FIRST_WITHOUT_FIR = "first_without_fir"  # the first fragment of a response lacks FIR
    FIR_AFTER_FIRST = "fir_after_first"  # a later fragment says it is a first one
    MORE_WITHOUT_CON = "more_without_con"  # a fragment before the last asks no confirmation
    UNS_ON_RESPONSE = "uns_on_response"  # a solicited response carries UNS
    UNSOLICITED_WITHOUT_UNS = "unsolicited_without_uns"  # an unsolicited one lacks UNS
    UNSOLICITED_NOT_FIR_FIN = "unsolicited_not_fir_fin"  # an unsolicited one is not FIR|FIN


@dataclass(slots=True, frozen=True)
class Verdict:
    """What to do with one response fragment.

    ``taken``: take it in (decode, store, publish); when not, ``reason`` says why.
    ``confirm``: send its CONFIRM now, before decoding it. ``complete``: it ends the
    transaction in flight. ``notes``: the rules it breaks, for a fragment taken in."""

    taken: bool
    confirm: bool = False
    complete: bool = False
    reason: Reason | None = None
    notes: tuple[Note, ...] = ()


_NOT_WAITED_FOR: Final = Verdict(False, reason=Reason.NO_REQUEST)
_WRONG_SEQUENCE: Final = Verdict(False, reason=Reason.WRONG_SEQUENCE)
_TAKEN: Final = {
    (confirm, complete): Verdict(True, confirm, complete)
    for confirm in (False, True)
    for complete in (False, True)
}


class Transaction:
    """One request and its answer (see the module's notes). ``now`` of :meth:`sent`,
    :meth:`receive` and :meth:`poll` is on one clock; :attr:`deadline` is on it too."""

    __slots__ = (
        "answered",
        "confirms",
        "deadline",
        "expected",
        "fragments",
        "function",
        "notes",
        "outcome",
        "read_retries",
        "retries",
        "seq",
        "timeout",
    )

    def __init__(
        self,
        function: FunctionCode,
        seq: int,
        *,
        timeout: float,
        read_retries: int = 0,
        confirms: bool = True,
        broadcast: int | None = None,
    ) -> None:
        self.function = function
        self.seq = seq & 0x0F
        self.timeout = timeout
        self.read_retries = read_retries if function in RETRIED else 0
        self.confirms = confirms
        # A broadcast is never answered to this master's request: it ends once sent.
        self.answered = broadcast is None and function.expects_response
        self.expected = self.seq
        self.fragments = 0
        self.retries = 0
        self.outcome: Outcome | None = None
        self.deadline: float | None = None
        self.notes: list[str] = []  # named reasons, in order, of what broke the rules

    @property
    def ended(self) -> bool:
        return self.outcome is not None

    def sent(self, now: float) -> None:
        """The request (or its repeat) has left: wait ``timeout`` from now for an answer; one
        that takes no answer ends ``sent``."""
        if self.outcome is not None:
            return
        if not self.answered:
            self.outcome = "sent"
            return
        self.deadline = now + self.timeout

    def receive(self, fragment: Fragment, now: float) -> Verdict:
        """A solicited response fragment (the caller routes unsolicited ones elsewhere)."""
        if self.outcome is not None:
            return _NOT_WAITED_FOR
        seq = fragment.seq
        if seq != self.expected:
            self.notes.append(f"{Reason.WRONG_SEQUENCE}: {seq}, expected {self.expected}")
            return _WRONG_SEQUENCE
        control = fragment.control
        first = self.fragments == 0
        fin = fragment.fin
        con = fragment.con
        self.fragments += 1
        self.expected = (seq + 1) & 0x0F
        if fin:
            self.outcome = "complete"
            self.deadline = None
        else:
            self.deadline = now + self.timeout
        confirm = con and self.confirms
        if fragment.fir == first and (fin or con) and not control & UNS:
            return _TAKEN[confirm, fin]  # the usual case: nothing to name
        notes = _solicited_notes(first, fragment)
        self.notes += notes
        return Verdict(True, confirm, fin, notes=notes)

    def poll(self, now: float, *, can_retry: bool = True) -> Step:
        """At or after :attr:`deadline`: ``retry`` (send the request again now, same
        sequence number, then call :meth:`sent`) for a READ that received nothing while
        retries remain and ``can_retry``; else it ends ``timeout``. Before it: ``wait``."""
        if self.outcome is not None:
            return "ended"
        if self.deadline is None or now < self.deadline:
            return "wait"
        if can_retry and self.fragments == 0 and self.retries < self.read_retries:
            self.retries += 1
            return "retry"
        self.outcome = "timeout"
        self.deadline = None
        return "ended"

    def abandon(self) -> None:
        """End it ``abandoned`` (the connection ended, or the caller gave up), unless it
        has ended already."""
        if self.outcome is None:
            self.outcome = "abandoned"
            self.deadline = None


def _solicited_notes(first: bool, fragment: Fragment) -> tuple[Note, ...]:
    notes: list[Note] = []
    if first and not fragment.fir:
        notes.append(Note.FIRST_WITHOUT_FIR)
    if not first and fragment.fir:
        notes.append(Note.FIR_AFTER_FIRST)
    if not fragment.fin and not fragment.con:
        notes.append(Note.MORE_WITHOUT_CON)
    if fragment.control & UNS:
        notes.append(Note.UNS_ON_RESPONSE)
    return tuple(notes)


class ExchangeRules:
    """The master's application layer for one outstation: the transaction in flight (one at
    a time) and where each response fragment goes. ``confirms``: whether the master sends
    the confirmations fragments ask for."""

    __slots__ = ("confirms", "current")

    def __init__(self, confirms: bool = True) -> None:
        self.confirms = confirms
        self.current: Transaction | None = None

    def start(
        self,
        function: FunctionCode,
        seq: int,
        *,
        timeout: float,
        read_retries: int = 0,
        broadcast: int | None = None,
    ) -> Transaction:
        """The transaction of a request about to leave; it is the one in flight until
        :meth:`end` (a transaction still in flight is replaced)."""
        transaction = Transaction(
            function,
            seq,
            timeout=timeout,
            read_retries=read_retries,
            confirms=self.confirms,
            broadcast=broadcast,
        )
        self.current = transaction
        return transaction

    def end(self, transaction: Transaction) -> None:
        """``transaction`` is no longer in flight (if it still was)."""
        if self.current is transaction:
            self.current = None

    def receive(self, fragment: Fragment, now: float) -> Verdict:
        """What to do with a response fragment: an unsolicited one is always taken in (it
        answers no request); a solicited one by the transaction in flight, if any."""
        if fragment.unsolicited:
            return self._unsolicited(fragment)
        transaction = self.current
        if transaction is None:
            return _NOT_WAITED_FOR
        return transaction.receive(fragment, now)

    def _unsolicited(self, fragment: Fragment) -> Verdict:
        confirm = fragment.con and self.confirms
        notes: tuple[Note, ...] = ()
        if not fragment.control & UNS:
            notes += (Note.UNSOLICITED_WITHOUT_UNS,)
        if not (fragment.fir and fragment.fin):
            notes += (Note.UNSOLICITED_NOT_FIR_FIN,)
        return Verdict(True, confirm, notes=notes) if notes else _TAKEN[confirm, False]
