"""``report`` and ``attributes`` through the service (HTTP answers checked against the OpenAPI
document it serves; the line service too), against gridwire's simulated DER: no report before
a run is a request error; after one, each format is the very file ``gridwire evaluate`` writes
for that report; the attributes answered by name over both transports."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from lxml import etree
from lxml import html as lxml_html

from gridwire.evaluate import Failed
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.evaluations import evaluations_of
from gridwire.evaluate.output import evidence_in_trace, render_report
from gridwire.simulator.attributes import SERIAL, VENDOR
from tests.evaluate.fake_checks import install
from tests.evaluate.test_service_evaluate import der_service
from tests.service.harness import HttpTransport, LineTransport, error, ok


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


async def fails(ctx: CheckContext) -> None:
    await ctx.read(ctx.served_points(["BI14", "BI15"]))
    raise Failed("BI14 and BI15 are both set")


async def test_report_in_each_format_is_the_cli_s_file(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, {"OP-001": fails})
    async with der_service() as running, HttpTransport(running) as http:
        refused = error(await http.call("report", "der", format="html"), "request")
        assert "no evaluation of 'der' has ended" in refused
        ok(await http.call("evaluate", "der", checks=["MON-001", "OP-001"]))
        report = evaluations_of(running.master).status("der").report
        assert report is not None
        files = {
            f: ok(await http.call("report", "der", format=f)) for f in ("json", "html", "junit")
        }
        bad = error(await http.call("report", "der", format="pdf"), "request")
        assert "format" in bad
        evidence = evidence_in_trace(running.master, report)
        expected = {f: render_report(report, f, evidence) for f in files}
    for format, file in files.items():
        assert file["content"].encode("utf-8") == expected[format], format
    assert files["json"]["media_type"] == "application/json"
    assert files["html"]["filename"].endswith(".html") and ":" not in files["html"]["filename"]
    assert orjson.loads(files["json"]["content"])["device"]["outstation"] == "der"
    etree.fromstring(files["junit"]["content"].encode())
    # the failed check's evidence: its frames, from the service's trace
    page = lxml_html.fromstring(files["html"]["content"])
    assert page.get_element_by_id("evidence-OP-001") is not None
    assert len(page.xpath("//table[@class='frames']/tbody/tr")) >= 2


async def test_attributes_over_http_and_the_line_service() -> None:
    async with der_service() as running:
        async with HttpTransport(running) as http:
            answer = ok(await http.call("attributes", "der"))
            missing = error(await http.call("attributes", "nobody"), "request")
        async with LineTransport(running) as line:
            again = ok(await line.call("attributes", "der"))
    assert answer["answered"] is True and "nobody" in missing
    for found in (answer, again):
        by_key = {a["key"]: a for a in found["attributes"]}
        assert by_key["vendor_name"]["value"] == VENDOR
        assert by_key["serial_number"]["value"] == SERIAL
        assert by_key["vendor_name"]["data_type"] == "VSTR"
    assert answer["exchange"]["request"][2:] == "0100fe06"
