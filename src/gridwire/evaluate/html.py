"""An evaluation report as one self-contained printable HTML page (``gridwire evaluate
--html``): the run's facts, the summary, a row per check with its verdict, detail and notes,
and for each failed check its evidence, the frames of its trace range decoded layer by layer
(:mod:`gridwire.evaluate.evidence`), with packet numbers when the run was captured.

Rendered by Jinja2 from ``templates/report.html.j2`` with autoescaping on (an outstation's
answers are shown, never interpreted); style inline, no script, nothing fetched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from gridwire.evaluate.evidence import FrameEvidence
from gridwire.evaluate.records import Report

TEMPLATE = "report.html.j2"
VERDICT_NAMES = {
    "passed": "passed",
    "failed": "failed",
    "not_applicable": "not applicable",
    "not_run": "not run",
}


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("gridwire.evaluate", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def render_html(
    report: Report, evidence: Mapping[str, Sequence[FrameEvidence]] | None = None
) -> str:
    """The page for ``report``; ``evidence`` holds the decoded frames of each failed check
    by check id (a check without any is shown as having none kept)."""
    failed = [r for r in report.results if r.verdict == "failed"]
    return (
        _environment()
        .get_template(TEMPLATE)
        .render(
            report=report,
            failed=failed,
            evidence=dict(evidence or {}),
            verdict_names=VERDICT_NAMES,
        )
    )
