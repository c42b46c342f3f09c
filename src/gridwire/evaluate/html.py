"""An evaluation report as one self-contained printable HTML page (``gridwire evaluate
--html``), the one a lab hands its customer: banners for what was left changed, a run that is
incomplete and demo tables; the device under test (identity from its device attributes, its
connection, its nameplate as read) and the verdict badge; the run's facts; the summary; a row
per check with its verdict, detail and notes (ids, numbers and times never wrap); and for
each failed check its evidence, the frames of its trace range decoded layer by layer
(:mod:`gridwire.evaluate.evidence`), with packet numbers when the run was captured. It prints
to A4 or Letter (the page leaves the paper size to the printer).

Rendered by Jinja2 from ``templates/report.html.j2`` with autoescaping on (an outstation's
answers are shown, never interpreted); style inline, no script, nothing fetched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from gridwire.evaluate.device import NameplateValue
from gridwire.evaluate.evidence import FrameEvidence
from gridwire.evaluate.records import Report
from gridwire.evaluate.verdict import incomplete_of, left_changed_of, verdict_of

TEMPLATE = "report.html.j2"
VERDICT_NAMES = {
    "passed": "passed",
    "failed": "failed",
    "not_applicable": "not applicable",
    "not_run": "not run",
}
IDENTITY: tuple[tuple[str, str], ...] = (
    ("Manufacturer", "vendor_name"),
    ("Product and model", "product_name"),
    ("Serial number", "serial_number"),
    ("Hardware version", "hardware_version"),
    ("Software version", "software_version"),
    ("Configuration ID", "configuration_id"),
    ("DNP3 subset level", "subset_level"),
    ("Device name", "device_name"),
    ("Location", "location"),
    ("ID code", "id_code"),
    ("Owner", "owner_name"),
)
NO_ATTRIBUTES = "not given: the outstation answered no device attributes (DNP3 group 0)"


def identity(report: Report) -> list[tuple[str, str]]:
    """The identity rows of the device block: what its device attributes say."""
    device = report.device
    if device is None:
        return [("Identity", "not recorded (a report from before device blocks)")]
    rows = [(label, device.attribute(key)) for label, key in IDENTITY]
    given = [(label, text) for label, text in rows if text is not None]
    return given or [("Identity", NO_ATTRIBUTES)]


def quantity(plate: NameplateValue) -> str:
    """A nameplate value as a person reads it: 10000 W, yes, not served."""
    value = plate.value
    if value is None:
        return "not served"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g} {plate.units}" if plate.units else f"{value:g}"


@lru_cache(maxsize=1)
def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("gridwire.evaluate", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["quantity"] = quantity
    return environment


def render_html(
    report: Report, evidence: Mapping[str, Sequence[FrameEvidence]] | None = None
) -> str:
    """The page for ``report``; ``evidence`` holds the decoded frames of each failed check
    by check id (a check without any is shown as having none kept)."""
    failed = [r for r in report.results if r.verdict == "failed"]
    device = report.device
    return (
        _environment()
        .get_template(TEMPLATE)
        .render(
            report=report,
            failed=failed,
            evidence=dict(evidence or {}),
            verdict_names=VERDICT_NAMES,
            verdict=verdict_of(report),
            left_changed=left_changed_of(report),
            incomplete=incomplete_of(report),
            identity=identity(report),
            product=device.attribute("product_name") if device else None,
            serial=device.attribute("serial_number") if device else None,
        )
    )
