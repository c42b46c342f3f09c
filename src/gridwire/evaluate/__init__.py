"""Evaluating an IEEE 1815.2 DER outstation: the catalogue of checks, the run, the report.

    from gridwire.evaluate import Options, evaluations_of

    report = await evaluations_of(master).evaluate("der", Options(checks=["der"]))

Layout: :mod:`.catalogue` (the 46 checks and where their code is), :mod:`.runner` (the run),
:mod:`.evaluations` (one run per outstation, progress, cancel), :mod:`.survey`,
:mod:`.context` (what a check is given), :mod:`.outcomes` (how it says how it ended),
:mod:`.primitives` (what checks share), :mod:`.families` (the checks, by family), and the
report writers :mod:`.html` and :mod:`.junit`. ``gridwire.master`` never imports this package.
"""

from gridwire.evaluate.catalogue import CATALOGUE, SETS, CheckSpec, listing, select
from gridwire.evaluate.context import CheckContext, RunState
from gridwire.evaluate.evaluations import Evaluations, evaluations_of
from gridwire.evaluate.journal import restore_journal
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.records import (
    CancelResult,
    CheckInfo,
    CheckResult,
    ChecksResult,
    EvaluationStatus,
    Report,
    Summary,
)
from gridwire.evaluate.runner import Options, Progress, evaluate

__all__ = [
    "CATALOGUE",
    "SETS",
    "CancelResult",
    "CheckContext",
    "CheckInfo",
    "CheckResult",
    "CheckSpec",
    "ChecksResult",
    "EvaluationStatus",
    "Evaluations",
    "Failed",
    "NotApplicable",
    "Options",
    "Progress",
    "Report",
    "RunState",
    "Summary",
    "evaluate",
    "evaluations_of",
    "listing",
    "restore_journal",
    "select",
]
