"""The simulated DER's own Device Profile (``gridwire sim --der --write-device-profile FILE``),
read back with lxml alone: schema 2.12.00's namespace, every point of the tables with its
name, event class, class 0 inclusion, deadband, range and scale as the DER serves them, and
the outstation's implementation table. Then the command as a user runs it, and der.compare
of the running DER against the file it wrote."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from lxml import etree

from gridwire.der.points import Kind
from gridwire.derops.compare import der_compare
from gridwire.master import Master, OutstationSettings
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.implementation import implementation_table
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile
from gridwire.simulator.profile import DEADBANDS
from tests.support.net import free_port
from tests.support.simulator import der_sim_with_profile

NAMESPACE = "http://www.dnp.org/DNP3/DeviceProfile"
NS = {"d": NAMESPACE}
SERVED = 741  # the demo map's 759 points less the 18 of watt-var, which the DER does not support
WORDS = {"none": 0, "one": 1, "two": 2, "three": 3}
ENTRY = {
    Kind.BI: "binaryInput",
    Kind.BO: "binaryOutput",
    Kind.CTR: "counter",
    Kind.AI: "analogInput",
    Kind.AO: "analogOutput",
}


def text(entry: etree._Element, path: str) -> str:
    found = entry.find(path, NS)
    assert found is not None, path
    return found.text or ""


def test_the_document_declares_every_point_as_the_der_serves_it() -> None:
    der = SimulatedDer()
    config = OutstationConfig(outstation_address=77, master_address=3, unsolicited=True)
    root = etree.fromstring(der_device_profile(der, config, port=20001))
    assert root.tag == f"{{{NAMESPACE}}}DNP3DeviceProfileDocument"
    assert root.get("schemaVersion") == "2.12.00"
    assert (
        text(
            root,
            "d:referenceDevice/d:configuration/d:linkConfig/d:dataLinkAddress/"
            "d:currentValue/d:value",
        )
        == "77"
    )
    network = root.find("d:referenceDevice/d:configuration/d:networkConfig", NS)
    assert text(network, "d:tcpListenPort/d:currentValue/d:value") == "20001"
    unsolicited = root.find("d:referenceDevice/d:configuration/d:unsolicitedConfig", NS)
    assert unsolicited.find("d:supportsUnsolicitedReporting/d:currentValue/d:on", NS) is not None
    assert text(unsolicited, "d:masterDataLinkAddress/d:currentValue/d:value") == "3"
    lists = root.find("d:referenceDevice/d:dataPointsList", NS)
    for point in der.map.points:
        found = lists.xpath(f".//d:{ENTRY[point.kind]}[d:index='{point.index}']", namespaces=NS)
        if not der.serves(point):  # a point of watt-var, which the DER does not support
            assert found == [] and point.enable == 30
            continue
        (entry,) = lists.xpath(f".//d:{ENTRY[point.kind]}[d:index='{point.index}']", namespaces=NS)
        assert text(entry, "d:name") == point.name
        stored = der.database.get(point.kind.type_name, point.index)  # type: ignore[arg-type]
        if point.kind is Kind.CTR:
            assert WORDS[text(entry, "d:counterEventClass")] == stored.event_class
            assert text(entry, "d:countersIncludedInClass0") == "always"
            assert text(entry, "d:frozenCounterExists") == ("true" if point.frozen else "false")
            continue
        assert WORDS[text(entry, "d:changeEventClass")] == stored.event_class
        assert text(entry, "d:includedInClass0Response") == "always"
        if point.kind.is_output:
            assert stored.event_class == 0  # their mirror inputs report the changes
        if point.kind is Kind.AI:
            assert float(text(entry, "d:dnpData/d:deadband")) == DEADBANDS.get(point.index, 0)
            assert float(text(entry, "d:minIntegerTransmittedValue")) == point.minimum
            assert float(text(entry, "d:maxIntegerTransmittedValue")) == point.maximum
        if point.kind in (Kind.AI, Kind.AO):
            assert float(text(entry, "d:scaleFactor")) == point.multiplier
            assert float(text(entry, "d:scaleOffset")) == point.offset
        if point.kind is Kind.AO:
            assert float(text(entry, "d:minTransmittedValue")) == point.minimum
            assert float(text(entry, "d:maxTransmittedValue")) == point.maximum
        if point.kind.is_binary and point.states is not None:
            assert (text(entry, "d:nameState0"), text(entry, "d:nameState1")) == point.states
    entries = lists.xpath("count(.//d:dataPoints/*)", namespaces=NS)
    assert entries == len([p for p in der.map.points if der.serves(p)])
    table = root.find("d:referenceDevice/d:implementationTable/d:table", NS)
    assert len(table) == len(implementation_table())
    (crob,) = table.xpath("d:supportedVariation[d:objectGroup='12']", namespaces=NS)
    functions = [e.text for e in crob.findall("d:request/d:functionCode", NS)]
    assert functions == ["3", "4", "5", "6"]  # select, operate, direct operate (no ack)
    assert [e.text for e in crob.find("d:request", NS).findall("d:qualifierCode", NS)] == [
        "23",
        "40",
        "57",
    ]
    delay = table.xpath("d:supportedFunctionCode[d:request/d:functionCode='23']", namespaces=NS)
    assert len(delay) == 1


GRIDWIRE = [sys.executable, "-m", "gridwire"]


def test_sim_writes_its_document_and_compares_clean_against_it(tmp_path: Path) -> None:
    path = tmp_path / "der.xml"
    with der_sim_with_profile(path) as (port, printed):
        assert printed[0] == f"gridwire sim: wrote the DER's Device Profile to {path}"
        assert printed[1].endswith(f"listening on TCP 127.0.0.1:{port}")
        root = etree.parse(str(path)).getroot()
        assert root.get("schemaVersion") == "2.12.00"
        network = root.find("d:referenceDevice/d:configuration/d:networkConfig", NS)
        assert text(network, "d:tcpListenPort/d:currentValue/d:value") == str(port)

        async def compare() -> tuple[int, int, int]:
            master = Master()
            try:
                await master.add(OutstationSettings(name="sim", host="127.0.0.1", port=port))
                result = await der_compare(master, "sim", path)
                return len(result.absent), len(result.undeclared), result.declared
            finally:
                await master.close()

        assert asyncio.run(compare()) == (0, 0, SERVED)


def test_write_device_profile_needs_der(tmp_path: Path) -> None:
    path = tmp_path / "x.xml"
    done = subprocess.run(
        [
            *GRIDWIRE,
            "sim",
            "--bind",
            f"127.0.0.1:{free_port()}",
            "--write-device-profile",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "gridwire sim: --write-device-profile writes the DER's document: give --der too"
    )
    assert not path.exists()
