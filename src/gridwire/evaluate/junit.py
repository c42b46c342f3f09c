"""An evaluation report as JUnit XML (``gridwire evaluate --junit``), so a lab's CI shows the
evaluation like any test suite: one ``testsuite`` for the run, one ``testcase`` per check
(classname ``gridwire.evaluate.<set>``, name ``ID: title``, time in seconds). A failed check
has a ``failure`` (message: the detail); one not applicable or not run is ``skipped`` with
the reason; notes go in the testcase's ``system-out``.
"""

from __future__ import annotations

import re

from lxml import etree

from gridwire.evaluate.catalogue import CATALOGUE
from gridwire.evaluate.records import Report

_SETS = {spec.id: spec.set for spec in CATALOGUE}
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold replaced (U+FFFD)."""
    return _NOT_XML.sub("\ufffd", text)


def render_junit(report: Report) -> bytes:
    """The JUnit XML document of ``report`` (UTF-8, with its declaration)."""
    summary = report.summary
    counts = {
        "tests": str(len(report.results)),
        "failures": str(summary.failed),
        "errors": "0",
        "skipped": str(summary.not_applicable + summary.not_run),
        "time": f"{sum(r.seconds for r in report.results):.3f}",
    }
    suites = etree.Element(
        "testsuites", {"name": f"gridwire evaluate {report.outstation}", **counts}
    )
    suite = etree.SubElement(
        suites,
        "testsuite",
        {
            "name": f"evaluation of {report.outstation}",
            **counts,
            "timestamp": report.started.removesuffix("Z"),
            "hostname": report.outstation,
        },
    )
    properties = etree.SubElement(suite, "properties")
    for name, value in (
        ("tool", f"{report.tool} {report.version}"),
        ("tables", report.tables),
        ("allow_control", str(report.allow_control).lower()),
        ("allow_deviations", str(report.allow_deviations).lower()),
        ("settle", str(report.settle)),
        ("curves", "" if report.curves is None else str(report.curves)),
    ):
        etree.SubElement(properties, "property", name=name, value=value)
    for result in report.results:
        case = etree.SubElement(
            suite,
            "testcase",
            classname=f"gridwire.evaluate.{_SETS.get(result.id, 'check')}",
            name=_xml(f"{result.id}: {result.title}"),
            time=f"{result.seconds:.3f}",
        )
        if result.verdict == "failed":
            detail = _xml(result.detail)
            failure = etree.SubElement(case, "failure", message=detail, type="failed")
            failure.text = detail
        elif result.verdict in ("not_applicable", "not_run"):
            reason = result.verdict.replace("_", " ")
            etree.SubElement(case, "skipped", message=_xml(f"{reason}: {result.detail}"))
        if result.notes:
            out = etree.SubElement(case, "system-out")
            out.text = _xml("\n".join(result.notes))
    return bytes(etree.tostring(suites, xml_declaration=True, encoding="UTF-8", pretty_print=True))
