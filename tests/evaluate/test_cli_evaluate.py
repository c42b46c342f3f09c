"""``gridwire evaluate`` as a user runs it, against ``gridwire sim --der`` (a subprocess on a
free port): exit codes, the plain progress lines, the report files read back by others'
readers (JUnit by junitparser, the page by lxml, the pcap by tshark), the ``evaluate``
section of --config. The command runs in this process (``gridwire.cli.main``) so that check
functions of the test's own can stand in for the families."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from junitparser import Failure, JUnitXml, Skipped
from lxml import html as lxml_html

from gridwire.cli import main
from gridwire.evaluate import Failed, NotApplicable
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.primitives import online
from gridwire.simulator.attributes import SERIAL
from tests.evaluate.fake_checks import install
from tests.evaluate.printing import pdf_text, print_page
from tests.support.net import free_port
from tests.support.simulator import der_sim_with_profile
from tests.support.tshark import tshark_fields

TIME = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d(\.\d+)?Z)?")


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))


async def passes(ctx: CheckContext) -> None:
    readings = await ctx.read(ctx.served_points(["BI0", "AI537"]))
    for reading in readings.values():
        online(reading)
    ctx.note("2 of 2 served")


async def fails(ctx: CheckContext) -> None:
    await ctx.read(ctx.served_points(["BI14", "BI15"]))
    raise Failed("BI14 and BI15 are both set")


async def inapplicable(ctx: CheckContext) -> None:
    raise NotApplicable("none of AI533-AI556 is served")


def test_list_prints_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 46
    assert lines[0].split()[:2] == ["PROFILE-001", "device-profile"]
    assert "writes" in lines[4] and lines[4].startswith("CONN-001")
    assert "deviates" in lines[-1] and lines[-1].startswith("CONFIRM-003")


def test_help_ends_with_the_exit_status_table(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    table = out[out.index("exit status:") :].splitlines()
    assert [line.split()[0] for line in table[1:] if line[:3].strip()] == ["0", "1", "2", "3", "4"]
    assert "--allow-deviations" in out and "wins over the others" in out


def test_a_run_that_cannot_be_made_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate"]) == 2
    assert "name the outstation" in capsys.readouterr().err
    assert main(["evaluate", "der"]) == 2
    assert "no outstation is named 'der'" in capsys.readouterr().err
    port = free_port()
    assert main(["evaluate", "der", "--outstation", f"der=127.0.0.1:{port}"]) == 2
    assert "has no profile" in capsys.readouterr().err
    assert main(["evaluate", "der", "--outstation", f"der=127.0.0.1:{port}", "--profile"]) == 2
    assert "gridwire evaluate:" in capsys.readouterr().err  # nothing listens: no connection
    args = ["evaluate", "der", "--outstation", f"der=127.0.0.1:{port}", "--profile"]
    assert main([*args, "--check", "NOPE-1"]) == 2
    assert "'NOPE-1' is neither a check nor a set" in capsys.readouterr().err
    assert main([*args, "--settle", "0"]) == 2
    assert "settle" in capsys.readouterr().err


def test_exit_1_when_a_check_failed_and_the_reports_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install(monkeypatch, {"MON-001": inapplicable, "ALARM-001": passes, "OP-001": fails})
    files = {name: tmp_path / f"run.{name}" for name in ("json", "html", "xml", "pcap")}
    with der_sim_with_profile(tmp_path / "profile.xml") as (port, _):
        code = main(
            [
                "evaluate",
                "der",
                "--outstation",
                f"der=127.0.0.1:{port}",
                "--profile",
                "--allow-control",
                "--check",
                "der",
                "--settle",
                "2",
                "--report",
                str(files["json"]),
                "--html",
                str(files["html"]),
                "--junit",
                str(files["xml"]),
                "--capture",
                str(files["pcap"]),
            ]
        )
    out = capsys.readouterr().out
    assert code == 1
    assert "MON-001       not applicable  Monitoring: none of AI533-AI556 is served" in out
    assert "OP-001        FAILED          Operating states: BI14 and BI15 are both set" in out
    assert "der: 36 checks: passed 1, failed 1, not applicable 1, not run 33" in out

    report = orjson.loads(files["json"].read_bytes())
    assert report["settle"] == 2.0 and report["allow_control"] is True
    results = {r["id"]: r for r in report["results"]}
    assert len(results) == 36
    op = results["OP-001"]
    assert op["frames"] is not None and op["packets"] is not None
    assert op["packets"][1] - op["packets"][0] == op["frames"][1] - op["frames"][0]
    assert results["MON-001"]["packets"] is None
    # the header names the device under test
    assert report["verdict"] == "fail" and report["ended"] >= report["started"]
    assert report["seconds"] >= 0
    device = report["device"]
    assert (device["host"], device["port"], device["tls"]) == ("127.0.0.1", port, False)
    assert (device["outstation_address"], device["master_address"]) == (1024, 1)
    attributes = {a["key"]: a["value"] for a in device["attributes"]}
    assert attributes["vendor_name"] == "gridwire" and attributes["serial_number"] == SERIAL
    plate = {n["point"]: n for n in device["nameplate"]}
    assert plate["AI4"]["value"] == 10000 and plate["AI4"]["units"] == "W"  # engineering units
    assert plate["AI2"]["value"] == 211.2  # 2112 transmitted, multiplier 0.1
    assert len(device["tables_sha256"]) == 64 and device["capture"] == files["pcap"].name
    assert device["parameters"]["settle"] == 2.0

    suite = next(iter(JUnitXml.fromfile(str(files["xml"]))))
    cases = {case.name.split(" ")[0]: case for case in suite}
    assert cases["OP-001"].name == "OP-001 Operating states"
    assert cases["OP-001"].classname == "gridwire.evaluate.der"
    properties = {p.name: p.value for p in suite.properties()}
    assert properties["device.port"] == str(port) and properties["verdict"] == "fail"
    assert properties["attribute.vendor_name"] == "gridwire"
    assert properties["capture"] == files["pcap"].name
    assert suite.tests == 36 and suite.failures == 1 and suite.skipped == 34
    failure = cases["OP-001"].result[0]
    assert isinstance(failure, Failure) and failure.message == "BI14 and BI15 are both set"
    skipped = cases["MON-001"].result[0]
    assert isinstance(skipped, Skipped)
    assert skipped.message == "not applicable: none of AI533-AI556 is served"
    assert cases["CONN-001"].result[0].message == "not run: not implemented in this build"
    assert cases["ALARM-001"].result == [] and cases["ALARM-001"].system_out == "2 of 2 served"

    page = lxml_html.fromstring(files["html"].read_bytes())
    title = page.findtext(".//title")
    assert title.startswith("Evaluation of Simulated DER battery inverter") and title.endswith(
        ": fail"
    )
    assert page.get_element_by_id("verdict").text_content() == "FAIL"
    assert page.get_element_by_id("failed").text_content() == "1"
    assert page.get_element_by_id("passed").text_content() == "1"
    rows = page.xpath("//table[@class='checks']/tbody/tr")
    assert len(rows) == 36
    op_row = page.get_element_by_id("check-OP-001")
    assert op_row.get("class") == "failed"
    assert "BI14 and BI15 are both set" in op_row.text_content()
    evidence = page.get_element_by_id("evidence-OP-001")
    assert evidence.text_content() == "OP-001: Operating states"
    frame_rows = page.xpath("//table[@class='frames']/tbody/tr")
    assert len(frame_rows) == op["frames"][1] - op["frames"][0] + 1
    first = frame_rows[0].text_content()
    assert "Link" in first and "PRI" in first and "Transport" in first
    assert "Application" in first and "READ" in first
    packets = [int(row.xpath("td")[1].text_content()) for row in frame_rows]

    # printed to A4 and Letter: every check id and every frame time whole on its line
    printed = print_page(files["html"], "cli-run")
    for paper in ("a4", "letter"):
        text = pdf_text(printed[paper])
        words = set(text.split())
        assert {r["id"] for r in report["results"]} <= words
        stamps = re.findall(r"20\d\d-[-0-9T:.Z]*", text)
        assert stamps and all(TIME.fullmatch(stamp) for stamp in stamps), stamps
        assert "FAIL" in text and "GW-SIM-0001" in text
    assert packets == list(range(op["packets"][0], op["packets"][1] + 1))
    response = frame_rows[-1].text_content()
    assert "RESPONSE" in response and "g1v" in response  # BI14/BI15 came back

    # tshark reads the capture: the packet numbers of OP-001 are its request and response.
    rows_of = tshark_fields(files["pcap"], port, ["frame.number", "dnp3.al.func"], "dnp3")
    functions = {int(number): func for number, func in rows_of}
    assert functions[op["packets"][0]] == "1"  # READ
    assert functions[op["packets"][1]] == "129"  # RESPONSE


def test_exit_0_when_none_failed_and_the_config_sections_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install(monkeypatch, {"ALARM-001": passes})
    with der_sim_with_profile(tmp_path / "profile.xml") as (port, _):
        config = {
            "outstations": [
                {"name": "der", "host": "127.0.0.1", "port": port, "profile": "ieee1815.2"}
            ],
            "evaluate": {"checks": ["alarm-001", "CONN-001"], "report": str(tmp_path / "r.json")},
        }
        (tmp_path / "c.json").write_bytes(orjson.dumps(config))
        code = main(["evaluate", "der", "--config", str(tmp_path / "c.json")])
    out = capsys.readouterr().out
    assert code == 0
    report = orjson.loads((tmp_path / "r.json").read_bytes())
    verdicts = {r["id"]: r["verdict"] for r in report["results"]}
    assert verdicts == {"ALARM-001": "passed", "CONN-001": "not_run"}  # no --allow-control
    assert "--allow-control" in report["results"][1]["detail"]
    assert f"wrote {tmp_path / 'r.json'}" in out
