"""The report's one badge, and the fields of a run's end it is decided from.

``Report.left_changed``, ``Summary.incomplete`` and ``CheckResult.interrupted`` are the
restore work's (what a run left changed, whether it was cut short); they are read here, in one
place, by name, so the report's writers (JSON, HTML, JUnit) work on a report whether or not a
run filled them.
"""

from __future__ import annotations

from typing import Any

from gridwire.evaluate.device import Overall, overall_verdict
from gridwire.evaluate.records import CheckResult, Report


def left_changed_of(report: Report) -> list[Any]:
    """What the run left changed: {point, as_found, now} each (empty when nothing)."""
    return list(getattr(report, "left_changed", None) or [])


def incomplete_of(report: Report) -> bool:
    """Whether a check was not run because the run was cancelled, interrupted or lost."""
    return bool(getattr(report.summary, "incomplete", False))


def interrupted_of(result: CheckResult) -> bool:
    """Whether the check was not run (or not finished) because the run was interrupted."""
    return bool(getattr(result, "interrupted", False))


def verdict_of(report: Report) -> Overall:
    """pass, fail or incomplete (see :func:`gridwire.evaluate.device.overall_verdict`)."""
    return overall_verdict(
        report.summary.failed, incomplete_of(report), bool(left_changed_of(report))
    )


def settle_verdict(report: Report) -> Report:
    """``report`` with its verdict decided from what it holds now (a writer calls this, so
    a field filled after the run ended counts)."""
    report.verdict = verdict_of(report)
    return report
