"""der.describe of an outstation we did not write: yadnp3 (opendnp3, C++, a subprocess)
serving 3 points of each of its nine types (binary, double-bit, binary output status,
counter, frozen counter, analog, analog output status, time-and-interval g50v4 and octet
string g110). The document it writes is laid out by der.document's reader, and der.compare of
it against the same outstation finds nothing absent, nothing undeclared and no class 0
difference. Literal entries checked by hand against what the stack serves: opendnp3's default
static variations (g1v2, g30v1, g40v1...), its points in class 1 (an event of BI1 and AI2
after an update, in g2v1 and g32v1), and no group 0 (it refuses g0v254 with OBJECT_UNKNOWN,
so the implementation table has no row of it). Then ``gridwire document --from-outstation``
as a user runs it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from gridwire.cli import main
from gridwire.derops.compare import der_compare
from gridwire.derops.describe import DescribeResult, der_describe
from gridwire.devprofile import lay_out, read_document
from gridwire.master import Master, OutstationSettings
from tests.support.peers import OutstationPeer, yadnp3_outstation

pytestmark = pytest.mark.interop

NS = {"d": "http://www.dnp.org/DNP3/DeviceProfile"}
NINE = {
    "bi": 3,
    "dbi": 3,
    "bo": 3,
    "counter": 3,
    "frozen": 3,
    "ai": 3,
    "ao": 3,
    "octet_string": 3,
    "time_and_interval": 3,
}


@pytest.fixture(scope="module")
def peer() -> Iterator[OutstationPeer]:
    with yadnp3_outstation(points=3) as outstation:
        yield outstation


def entry(root: etree._Element, list_entry: str, index: int) -> etree._Element:
    (found,) = root.xpath(f".//d:{list_entry}[d:index='{index}']", namespaces=NS)
    return found


def text(element: etree._Element, path: str) -> str | None:
    found = element.find(path, NS)
    return None if found is None else (found.text or "")


def word(element: etree._Element, path: str) -> str:
    (chosen,) = element.find(path, NS)
    return str(etree.QName(chosen).localname)


async def test_describe_of_yadnp3_compares_clean(peer: OutstationPeer) -> None:
    master = Master()
    try:
        # manual: the master polls nothing of its own, so the class reads find the events;
        # confirm: it confirms responses all the same (a fragmented one goes on at once)
        settings = OutstationSettings(
            name="y", host="127.0.0.1", port=peer.port, manual=True, confirm=True
        )
        await master.add(settings)
        await master.idle("y")
        await peer.acall(
            {
                "cmd": "update",
                "points": [
                    {"type": "binary", "index": 1, "value": True},
                    {"type": "analog", "index": 2, "value": 42.5},
                ],
            }
        )
        result = await der_describe(master, "y")
        compared = await der_compare(master, "y", result.document)
    finally:
        await master.close()
    assert result.counts == NINE
    assert (compared.declared, compared.served) == (21, 21)  # the seven types a list holds
    assert compared.absent == compared.undeclared == compared.class_0 == []
    # Class 0, output status, g0v254 (refused), class 1, 2 and 3 (g60v2, g60v3, g60v4).
    requests = [e.request[4:] for e in result.exchanges]
    assert requests == ["3c0106", "0a0006280006", "00fe06", "3c0206", "3c0306", "3c0406"]
    assert "OBJECT_UNKNOWN" in result.exchanges[2].indications
    assert (result.attributes, result.function_codes) == (0, [1])
    _by_hand(result)


def _by_hand(result: DescribeResult) -> None:
    root = etree.fromstring(result.document.encode())
    layout = lay_out(read_document(result.document))
    assert layout.title == "y: observed by gridwire"
    ai2 = entry(root, "analogInput", 2)
    assert text(ai2, "d:name") == "Analog input 2"
    assert text(ai2, "d:changeEventClass") == "one"
    assert text(ai2, "d:includedInClass0Response") == "always"
    assert word(ai2, "d:defaultStaticVariation") == "one"  # g30v1
    assert word(ai2, "d:defaultEventVariation") == "one"  # g32v1
    assert text(ai2, "d:description") == (
        "Observed by gridwire: served in the class 0 read as g30v1; an event in class 1 as g32v1"
    )
    assert text(ai2, "d:scaleFactor") is None  # not observed: not written
    ai0 = entry(root, "analogInput", 0)
    assert text(ai0, "d:changeEventClass") is None  # no event seen: no class stated
    bi1 = entry(root, "binaryInput", 1)
    assert (word(bi1, "d:defaultStaticVariation"), word(bi1, "d:defaultEventVariation")) == (
        "two",
        "one",
    )  # g1v2, g2v1
    counter = entry(root, "counter", 0)
    assert text(counter, "d:frozenCounterExists") == "true"
    assert word(counter, "d:defaultFrozenCounterStaticVariation") == "one"  # g21v1
    bo = entry(root, "binaryOutput", 2)
    assert text(bo, "d:supportedControlOperations") is None  # not observed
    assert word(bo, "d:defaultStaticVariation") == "two"  # g10v2
    device = root.find("d:referenceDevice/d:configuration/d:deviceConfig", NS)
    assert text(device, "d:vendorName/d:currentValue/d:value") == "not reported by the outstation"
    table = root.find("d:referenceDevice/d:implementationTable/d:table", NS)
    rows = {
        (text(r, "d:objectGroup"), text(r, "d:variation")): r
        for r in table.findall("d:supportedVariation", NS)
    }
    assert ("0", "254") not in rows  # refused: OBJECT_UNKNOWN
    class_1 = rows[("60", "2")]
    assert [
        text(class_1, "d:request/d:functionCode"),
        text(class_1, "d:request/d:qualifierCode"),
    ] == [
        "1",
        "6",
    ]
    assert text(rows[("110", "1")], "d:response/d:functionCode") == "129"  # octet strings
    assert text(rows[("50", "4")], "d:response/d:functionCode") == "129"  # time and interval
    reason = root.find("d:documentHeader/d:revisionHistory/d:reason", NS)
    assert reason is not None and reason.text.startswith("Observed by gridwire der.describe")


def test_gridwire_document_from_outstation(
    peer: OutstationPeer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "y.xml"
    args = ["document", "--from-outstation", "y", "--outstation", f"y=127.0.0.1:{peer.port}"]
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == (
        f"wrote {out}: what y serves (3 bi, 3 dbi, 3 bo, 3 counter, 3 frozen, 3 ai, 3 ao, "
        "3 octet_string, 3 time_and_interval; 0 device attributes; function codes accepted 1)"
    )
    root = etree.parse(str(out)).getroot()
    for name in ("binaryInput", "doubleBitInput", "binaryOutput", "counter", "analogInput"):
        assert len(root.xpath(f".//d:dataPoints/d:{name}", namespaces=NS)) == 3, name
    port = root.find(
        "d:referenceDevice/d:configuration/d:networkConfig/d:tcpListenPort/d:currentValue/d:value",
        NS,
    )
    assert port is not None and port.text == str(peer.port)
