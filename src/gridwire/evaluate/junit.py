"""An evaluation report as JUnit XML (``gridwire evaluate --junit``), so a lab's CI shows the
evaluation like any test suite: one ``testsuite`` for the run, one ``testcase`` per check
(classname ``gridwire.evaluate.<set>``, name ``<id> <title>``: the catalogue's, the same for
every device, so a CI keeps each check's history; time in seconds). A failed check has a
``failure`` (message: the detail); one the run's interruption kept from running or finishing
(``CheckResult.interrupted``) an ``error``; one not applicable or not run otherwise is
``skipped`` with the reason; notes go in the testcase's ``system-out``. The suite's
``properties`` carry the report's header: the device under test, its attributes and
nameplate, the tables, the run's parameters and the verdict.

Characters XML 1.0 forbids (controls, lone surrogates, U+FFFE/U+FFFF) are dropped from every
text an outstation or a user could have put there, so the file always parses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml import etree

from gridwire.evaluate.catalogue import CATALOGUE
from gridwire.evaluate.records import Report
from gridwire.evaluate.verdict import interrupted_of, left_changed_of, verdict_of

_SETS = {spec.id: spec.set for spec in CATALOGUE}
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: object) -> str:
    """``text`` as a string without the characters XML 1.0 cannot hold."""
    return _NOT_XML.sub("", str(text))


def _device_properties(report: Report) -> Iterator[tuple[str, object]]:
    device = report.device
    if device is None:
        return
    yield "device.outstation", device.outstation
    yield "device.host", device.host
    yield "device.port", device.port
    yield "device.outstation_address", device.outstation_address
    yield "device.master_address", device.master_address
    yield "device.tls", str(device.tls).lower()
    yield "tables.sha256", device.tables_sha256
    if device.tables_source:
        yield "tables.source", device.tables_source
    if device.device_profile:
        yield "device_profile", device.device_profile
        yield "device_profile.sha256", device.device_profile_sha256 or ""
    if device.capture:
        yield "capture", device.capture
    for attribute in device.attributes:
        key = attribute.key if attribute.set == 0 else f"set{attribute.set}.{attribute.key}"
        yield f"attribute.{key}", attribute.text
    for plate in device.nameplate:
        shown = "" if plate.value is None else f"{plate.value}"
        unit = f" {plate.units}" if plate.units and plate.value is not None else ""
        yield f"nameplate.{plate.point}", f"{shown}{unit} ({plate.name})"
    for name, value in device.parameters.items():
        shown = ",".join(value) if isinstance(value, list) else value
        yield (
            f"parameter.{name}",
            "" if shown is None else str(shown).lower() if isinstance(shown, bool) else shown,
        )


def _properties(report: Report) -> Iterator[tuple[str, object]]:
    yield "tool", f"{report.tool} {report.version}"
    yield "verdict", verdict_of(report)
    yield "started", report.started
    if report.ended:
        yield "ended", report.ended
        yield "seconds", f"{report.seconds or 0:.0f}"
    yield "tables", report.tables
    yield "allow_control", str(report.allow_control).lower()
    yield "allow_deviations", str(report.allow_deviations).lower()
    yield "settle", report.settle
    yield "curves", "" if report.curves is None else report.curves
    yield from _device_properties(report)
    for item in left_changed_of(report):
        yield "left_changed", item


def render_junit(report: Report) -> bytes:
    """The JUnit XML document of ``report`` (UTF-8, with its declaration)."""
    summary = report.summary
    errors = sum(1 for r in report.results if interrupted_of(r))
    skipped = sum(
        1
        for r in report.results
        if r.verdict in ("not_applicable", "not_run") and not interrupted_of(r)
    )
    counts = {
        "tests": str(len(report.results)),
        "failures": str(summary.failed),
        "errors": str(errors),
        "skipped": str(skipped),
        "time": f"{sum(r.seconds for r in report.results):.3f}",
    }
    name = xml_text(report.outstation)
    suites = etree.Element("testsuites", {"name": f"gridwire evaluate {name}", **counts})
    suite = etree.SubElement(
        suites,
        "testsuite",
        {
            "name": f"evaluation of {name}",
            **counts,
            "timestamp": xml_text(report.started.removesuffix("Z")),
            "hostname": xml_text(report.device.host if report.device else name),
        },
    )
    properties = etree.SubElement(suite, "properties")
    for key, value in _properties(report):
        etree.SubElement(properties, "property", name=xml_text(key), value=xml_text(value))
    for result in report.results:
        case = etree.SubElement(
            suite,
            "testcase",
            classname=f"gridwire.evaluate.{_SETS.get(result.id, 'check')}",
            name=xml_text(f"{result.id} {result.title}"),
            time=f"{result.seconds:.3f}",
        )
        detail = xml_text(result.detail)
        if result.verdict == "failed":
            failure = etree.SubElement(case, "failure", message=detail, type="failed")
            failure.text = detail
        elif interrupted_of(result):
            error = etree.SubElement(case, "error", message=detail, type="interrupted")
            error.text = detail
        elif result.verdict in ("not_applicable", "not_run"):
            reason = result.verdict.replace("_", " ")
            etree.SubElement(case, "skipped", message=f"{reason}: {detail}")
        if result.notes:
            out = etree.SubElement(case, "system-out")
            out.text = xml_text("\n".join(result.notes))
    return bytes(etree.tostring(suites, xml_declaration=True, encoding="UTF-8", pretty_print=True))
