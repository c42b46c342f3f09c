"""der.compare (gridwire.derops.compare) against the simulated DER over TCP, with the Device
Profile the DER writes of itself (and that document edited), and against a reader that
answers as an outstation whose class 0 response leaves points out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lxml import etree

from gridwire.der.pointmap import PointMap
from gridwire.der.profiles import ProfileLoader
from gridwire.derops.compare import PointRef, compare_points, der_compare
from gridwire.derops.der_master import DerMaster
from gridwire.devprofile.points import DeclaredPoint
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import ConnectionFailed, RequestError
from gridwire.master import Master, OutstationSettings
from gridwire.master.records import Exchange
from gridwire.outstation.server import run_outstation
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile
from tests.support.net import free_port

NS = {"d": "http://www.dnp.org/DNP3/DeviceProfile"}
SERVED = 741  # the demo map's 759 points less the 18 of watt-var, which the DER does not support
CLASS_0 = "3c0106"  # g60v1, all: the class 0 read (octets after the application header)
OUTPUTS = "0a0006" + "280006"  # g10v0 and g40v0, all: the output status read


@pytest.fixture
async def der() -> AsyncIterator[tuple[Master, bytes, int]]:
    device = SimulatedDer()
    async with run_outstation(device, "127.0.0.1", 0) as server:
        master = Master(profiles=ProfileLoader(None))  # read-only: compare only reads
        await master.add(
            OutstationSettings(name="der", host="127.0.0.1", port=server.port, profile="ieee1815.2")
        )
        try:
            yield master, der_device_profile(device, port=server.port), server.port
        finally:
            await master.close()


def edited(document: bytes, kind: str, at: int, **changes: str) -> bytes:
    """The document with elements of the point at index ``at`` changed (``index`` among
    them: the point moved)."""
    tree = etree.fromstring(document)
    (entry,) = tree.xpath(f"//d:{kind}[d:index='{at}']", namespaces=NS)
    for name, text in changes.items():
        entry.find(f"d:{name}", NS).text = text
    return bytes(etree.tostring(tree))


def profile(master: Master) -> PointMap:
    found = master.point_map("der")
    assert isinstance(found, PointMap)
    return found


def bodies(exchanges: list[Exchange]) -> list[str]:
    return [e.request[4:] for e in exchanges]


async def test_the_der_against_its_own_document(der: tuple[Master, bytes, int]) -> None:
    master, document, _ = der
    result = await der_compare(master, "der", document)
    assert result.declared == result.served == SERVED
    assert result.absent == [] and result.undeclared == [] and result.class_0 == []
    assert len(result.points) == SERVED
    # Class 0 and output status returned every declared point: no read by ranges followed.
    assert bodies(result.exchanges) == [CLASS_0, OUTPUTS]
    voltage = next(p for p in result.points if (p.type, p.index) == ("ai", 547))
    assert voltage.name == "System meter voltage, phase A"
    assert (voltage.event_class, voltage.class_0, voltage.deadband) == (3, "always", 24.0)
    assert voltage.flags is not None and "ONLINE" in voltage.flags
    frozen = [p for p in result.points if p.type == "frozen"]
    assert [p.index for p in frozen] == [0, 1, 2, 3]


async def test_one_point_moved_is_one_absent_and_one_undeclared(
    der: tuple[Master, bytes, int],
) -> None:
    master, document, _ = der
    moved = edited(document, "analogInput", 537, index="9000")
    result = await der_compare(master, "der", moved)
    assert result.absent == [PointRef("ai", 9000, "System meter active power")]
    assert result.undeclared == [PointRef("ai", 537, "System meter active power")]
    assert result.declared == SERVED and result.served == SERVED
    # The absent point was read on its own range (g30v0, 16-bit start-stop 9000-9000), which
    # the DER refused: it serves no AI 9000.
    assert bodies(result.exchanges) == [CLASS_0, OUTPUTS, "1e0001" + "2823" * 2]
    assert "PARAMETER_ERROR" in result.exchanges[2].indications


async def test_absent_points_in_two_ranges_are_read_range_by_range(
    der: tuple[Master, bytes, int],
) -> None:
    master, document, _ = der
    moved = edited(
        edited(document, "analogInput", 537, index="9000"), "binaryInput", 3, index="700"
    )
    result = await der_compare(master, "der", moved)
    assert [(p.type, p.index) for p in result.absent] == [("bi", 700), ("ai", 9000)]
    assert [(p.type, p.index) for p in result.undeclared] == [("bi", 3), ("ai", 537)]
    both = "0100" + "01" + "bc02" * 2 + "1e00" + "01" + "2823" * 2
    assert bodies(result.exchanges) == [
        CLASS_0,
        OUTPUTS,
        both,  # refused whole: then each range alone
        "010001" + "bc02" * 2,
        "1e0001" + "2823" * 2,
    ]


async def test_class_0_inclusion_unlike_the_declaration(der: tuple[Master, bytes, int]) -> None:
    master, document, _ = der
    never = edited(document, "binaryInput", 5, includedInClass0Response="never")
    result = await der_compare(master, "der", never)
    (difference,) = result.class_0
    assert (difference.type, difference.index, difference.declared, difference.carried) == (
        "bi",
        5,
        "never",
        True,
    )
    assert difference.name == profile(master).name_of("bi", 5)
    assert result.absent == [] and result.undeclared == []


async def test_no_profile_is_needed_and_undeclared_points_are_then_unnamed(
    der: tuple[Master, bytes, int],
) -> None:
    master, document, port = der
    await master.remove("der")  # the DER takes one master connection at a time
    await master.add(OutstationSettings(name="plain", host="127.0.0.1", port=port))
    moved = edited(document, "analogInput", 537, index="9000")
    result = await der_compare(master, "plain", moved)
    assert result.undeclared == [PointRef("ai", 537, None)]


async def test_not_connected_is_a_connection_error() -> None:
    master = Master()
    with pytest.raises(ConnectionFailed):  # it stays added, not connected
        await master.add(
            OutstationSettings(name="gone", host="127.0.0.1", port=free_port(), reconnect=None)
        )
    try:
        with pytest.raises(ConnectionFailed):
            await der_compare(master, "gone", "<DNP3DeviceProfileDocument/>")
        with pytest.raises(RequestError, match="refused: it is not XML"):
            await der_compare(master, "gone", "<DNP3DeviceProfileDocument>")
    finally:
        await master.close()


def obj(point_type: str, index: int, value: float = 1.0, event: bool = False) -> DnpObject:
    return DnpObject(point_type, 30, 1, index, None, value, ["ONLINE"], None, None, event)


def exchange(objects: list[DnpObject]) -> Exchange:
    return Exchange("READ", None, 0, "complete", 1, [], len(objects), 1.0, "", [], objects)


class LeavesOutOfClass0:
    """An outstation that serves AI 0-2 but leaves AI 2 out of its class 0 response (and
    reports an event for AI 7, which is not a point value)."""

    def __init__(self) -> None:
        self.reads: list[dict[str, list[int | str]]] = []
        self.scans: list[str] = []

    async def scan(self, outstation: str, kind: str) -> Exchange:
        self.scans.append(kind)
        if kind == "class0":
            return exchange([obj("ai", 0), obj("ai", 1), obj("ai", 7, event=True)])
        return exchange([])

    async def read(self, outstation: str, points: dict[str, list[int | str]]) -> Exchange:
        self.reads.append(points)
        return exchange([obj("ai", 2, 5.0)])


async def test_a_point_left_out_of_class_0_is_read_and_reported() -> None:
    reader = LeavesOutOfClass0()
    declared = [DeclaredPoint("ai", i, f"AI {i}", 1, "always", None) for i in (0, 1, 2)]
    result = await compare_points(reader, "x", declared)
    assert reader.scans == ["class0", "outputs"] and reader.reads == [{"ai": ["2-2"]}]
    assert result.absent == [] and result.undeclared == []
    (difference,) = result.class_0
    assert (difference.index, difference.declared, difference.carried) == (2, "always", False)
    assert [(p.index, p.value) for p in result.points] == [(0, 1.0), (1, 1.0), (2, 5.0)]
    assert result.served == 3  # the event for AI 7 is not a point served


async def test_the_python_api_compare_and_document(tmp_path: Path) -> None:
    """``master.der(name).compare()`` and ``.document()``: the outstation's own document by
    default, the one given otherwise; no document anywhere is a request error saying how."""
    device = SimulatedDer()
    async with run_outstation(device, "127.0.0.1", 0) as server:
        path = tmp_path / "der.xml"
        path.write_bytes(der_device_profile(device, port=server.port))
        master = DerMaster()
        try:
            await master.add(
                OutstationSettings(
                    name="der",
                    host="127.0.0.1",
                    port=server.port,
                    profile="ieee1815.2",
                    device_profile=str(path),
                )
            )
            der = master.der("der")
            own = await der.compare()
            assert own.absent == [] and own.undeclared == [] and own.declared == SERVED
            layout = await der.document()
            assert layout.title.startswith("gridwire simulated IEEE 1815.2 DER")
            moved = edited(path.read_bytes(), "analogInput", 537, index="9000")
            given = await der.compare(moved)
            assert given.undeclared == [PointRef("ai", 537, "System meter active power")]
            assert (await der.document(path)).title == layout.title
            await master.remove("der")
            await master.add(OutstationSettings(name="bare", host="127.0.0.1", port=server.port))
            with pytest.raises(RequestError, match="'bare' has no Device Profile document"):
                await master.der("bare").compare()
            fallback = await master.der("bare").compare(fallback=path)
            assert fallback.absent == [] and fallback.undeclared == []
        finally:
            await master.close()
