"""The report's header and its three writers, on reports built here: the device block in
JSON, HTML and JUnit; the one verdict; the banners (left changed, incomplete, demo tables);
JUnit's names, errors for interrupted checks, and a file that parses whatever an outstation
put in its texts (control characters included).

``left_changed``, ``Summary.incomplete`` and ``CheckResult.interrupted`` belong to the
restore work (D123 reads them by name); the subclasses below carry them so these tests hold on a
build with or without it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from junitparser import Error, Failure, JUnitXml, Skipped
from lxml import etree
from lxml import html as lxml_html

from gridwire.evaluate.device import DeviceUnderTest, NameplateValue, overall_verdict
from gridwire.evaluate.junit import render_junit
from gridwire.evaluate.output import render_report
from gridwire.evaluate.records import CheckResult, Report, Summary
from gridwire.evaluate.verdict import verdict_of
from gridwire.master.attributes import DeviceAttribute

CONTROLS = "".join(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r") + "\ufffe\uffff\ud800"


@dataclass(slots=True)
class InterruptedResult(CheckResult):
    interrupted: bool = True


@dataclass(slots=True)
class IncompleteSummary(Summary):
    incomplete: bool = True


@dataclass(slots=True)
class EndedReport(Report):
    left_changed: list[dict[str, Any]] = field(default_factory=list)


def device(**changes: Any) -> DeviceUnderTest:
    fields: dict[str, Any] = {
        "outstation": "der",
        "host": "192.0.2.7",
        "port": 20001,
        "outstation_address": 10,
        "master_address": 3,
        "tls": True,
        "tables": "IEEE 1815.2 tables",
        "tables_source": "tables.xlsx",
        "tables_sha256": "ab" * 32,
        "device_profile": "der.xml",
        "device_profile_sha256": "cd" * 32,
        "capture": "run.pcap",
        "attributes": [
            DeviceAttribute(
                0, 252, "vendor_name", "Device manufacturer's name", "VSTR", "Acme", "Acme"
            ),
            DeviceAttribute(
                0,
                250,
                "product_name",
                "Device manufacturer's product name and model",
                "VSTR",
                "Inverter 9000",
                "Inverter 9000",
            ),
            DeviceAttribute(
                0, 248, "serial_number", "Device serial number", "VSTR", "SN-1", "SN-1"
            ),
        ],
        "nameplate": [NameplateValue("AI4", "Nameplate active power rating", 10000.0, "W")],
        "parameters": {"checks": "all", "settle": 5.0},
    }
    fields.update(changes)
    return DeviceUnderTest(**fields)


def report(results: list[CheckResult], summary: Summary | None = None, **more: Any) -> Report:
    kind = EndedReport if "left_changed" in more else Report
    return kind(
        tool="gridwire",
        version="0.1.0",
        outstation="der",
        started="2026-11-27T10:00:00Z",
        allow_control=True,
        allow_deviations=False,
        tables="IEEE 1815.2 tables",
        settle=5.0,
        curves=None,
        summary=summary or Summary.of(results),
        results=results,
        device=more.pop("device", device()),
        ended="2026-11-27T10:03:20Z",
        seconds=200.0,
        **more,
    )


PASSED = CheckResult("MON-001", "Monitoring", "passed", "24 of 24 served")
FAILED = CheckResult("OP-001", "Operating states", "failed", "BI14 and BI15 are both set")


def test_the_verdict() -> None:
    assert overall_verdict(0, False, False) == "pass"
    assert overall_verdict(1, False, False) == "fail"
    assert overall_verdict(0, True, False) == "incomplete"
    assert overall_verdict(0, True, True) == "fail"  # something left changed: never a pass
    assert overall_verdict(2, True, False) == "fail"
    assert verdict_of(report([PASSED])) == "pass"
    assert verdict_of(report([PASSED, FAILED])) == "fail"
    assert verdict_of(report([PASSED], IncompleteSummary(passed=1))) == "incomplete"
    left = [{"point": "BO2", "as_found": False, "now": True}]
    assert verdict_of(report([PASSED], left_changed=left)) == "fail"


def test_json_carries_the_device_and_the_verdict() -> None:
    data = orjson.loads(render_report(report([PASSED, FAILED]), "json"))
    assert data["verdict"] == "fail"
    assert (data["ended"], data["seconds"]) == ("2026-11-27T10:03:20Z", 200.0)
    d = data["device"]
    assert (d["host"], d["port"], d["outstation_address"], d["master_address"], d["tls"]) == (
        "192.0.2.7",
        20001,
        10,
        3,
        True,
    )
    assert d["attributes"][0]["key"] == "vendor_name" and d["attributes"][0]["value"] == "Acme"
    assert d["nameplate"] == [
        {"point": "AI4", "name": "Nameplate active power rating", "value": 10000.0, "units": "W"}
    ]
    assert d["tables_sha256"] == "ab" * 32 and d["capture"] == "run.pcap"


def test_html_names_the_device_first() -> None:
    page = lxml_html.fromstring(render_report(report([PASSED, FAILED]), "html"))
    assert page.findtext(".//title") == "Evaluation of Inverter 9000: fail"
    assert page.get_element_by_id("verdict").text_content() == "FAIL"
    identity = page.find_class("identity")[0].text_content()
    for text in ("Acme", "Inverter 9000", "SN-1"):
        assert text in identity
    connection = page.find_class("connection")[0].text_content()
    assert "192.0.2.7:20001" in connection and "outstation 10, master 3" in connection
    assert "10000 W" in page.find_class("nameplate")[0].text_content()
    run = page.find_class("run")[0].text_content()
    for text in ("ab" * 32, "der.xml", "cd" * 32, "run.pcap", "2026-11-27T10:03:20Z", "200 s"):
        assert text in run
    # the device block comes before the summary, the summary before the checks
    assert [h.get("id") for h in page.iter("h2")] == [
        "device",
        "run",
        "summary",
        "checks",
        "evidence",
    ]
    # ids and times are cells that never wrap
    assert page.get_element_by_id("check-OP-001")[0].get("class") == "id"
    assert not page.find_class("banner")


def test_html_banners() -> None:
    left = [{"point": "BO2 Cease to energize", "as_found": False, "now": True}]
    interrupted = InterruptedResult("SERV-001", "Cease", "not_run", "cancelled")
    page = lxml_html.fromstring(
        render_report(
            report(
                [PASSED, interrupted],
                IncompleteSummary(passed=1, not_run=1),
                left_changed=left,
                device=device(demo=True, attributes=[]),
            ),
            "html",
        )
    )
    banner = page.get_element_by_id("left-changed").text_content()
    assert "BO2 Cease to energize" in banner and "True" in banner
    assert "1 check not run" in page.get_element_by_id("incomplete").text_content()
    assert "demo map" in page.get_element_by_id("demo-tables").text_content()
    # the first thing on the page is what was left changed
    assert page.find_class("banner")[0].get("id") == "left-changed"
    assert page.get_element_by_id("verdict").text_content() == "FAIL"
    assert "answered no device attributes" in page.find_class("identity")[0].text_content()


def test_junit_names_errors_properties_and_control_characters(tmp_path: Any) -> None:
    dirty = CheckResult(
        "ALARM-001", "Alarm reporting", "failed", f"bad{CONTROLS}text", [f"n{CONTROLS}"]
    )
    interrupted = InterruptedResult(
        "SERV-001", "Cease to energize and return to service", "not_run", "interrupted by SIGTERM"
    )
    skipped = CheckResult("LINK-001", "Bad header CRC", "not_run", "allow_deviations is false")
    attributes = [
        DeviceAttribute(
            0, 252, "vendor_name", "Device manufacturer's name", "VSTR", "x", f"Ac{CONTROLS}me"
        )
    ]
    octets = render_junit(
        report([PASSED, dirty, interrupted, skipped], device=device(attributes=attributes))
    )
    etree.fromstring(octets)  # parses: no character XML 1.0 forbids
    path = tmp_path / "run.xml"
    path.write_bytes(octets)
    suite = next(iter(JUnitXml.fromfile(str(path))))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 1, 1, 1)
    cases = {case.name: case for case in suite}
    assert set(cases) == {
        "MON-001 Monitoring",
        "ALARM-001 Alarm reporting",
        "SERV-001 Cease to energize and return to service",
        "LINK-001 Bad header CRC",
    }
    assert cases["MON-001 Monitoring"].classname == "gridwire.evaluate.der"
    failure = cases["ALARM-001 Alarm reporting"].result[0]
    assert isinstance(failure, Failure) and failure.message == "badtext"
    error = cases["SERV-001 Cease to energize and return to service"].result[0]
    assert isinstance(error, Error) and error.message == "interrupted by SIGTERM"
    assert isinstance(cases["LINK-001 Bad header CRC"].result[0], Skipped)
    properties = {p.name: p.value for p in suite.properties()}
    assert properties["verdict"] == "fail"
    assert properties["device.host"] == "192.0.2.7" and properties["device.port"] == "20001"
    assert properties["device.tls"] == "true"
    assert properties["attribute.vendor_name"] == "Acme"
    assert properties["tables.sha256"] == "ab" * 32
    assert properties["nameplate.AI4"] == "10000.0 W (Nameplate active power rating)"
    assert properties["capture"] == "run.pcap"
