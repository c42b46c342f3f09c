"""How a check says how it ended: it returns when it passed, or raises one of these.

A check function is written straight down its procedure; the primitives
(:mod:`gridwire.evaluate.primitives`) raise :class:`Failed` as soon as what they look at is not
what the check needs, so the first thing wrong is the detail reported. :class:`NotApplicable`
says the outstation lacks what the check is about (no curve block, no function enabled by the
output). Anything else a check raises is not a verdict on the outstation: a lost connection
ends the check as failed and the rest of the run as not run; any other exception is a fault
of the check itself, reported ``not_run`` with what it was (and logged with its traceback).
"""

from __future__ import annotations


class CheckEnded(Exception):
    """A check ended before its last step; ``detail`` says why."""

    verdict: str = ""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Failed(CheckEnded):
    """The outstation did not do what the check needs of it."""

    verdict = "failed"


class NotApplicable(CheckEnded):
    """The outstation does not serve what the check is about."""

    verdict = "not_applicable"
