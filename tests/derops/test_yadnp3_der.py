"""The DER procedures against a third-party stack: yadnp3's (opendnp3's) outstation serving a
small point map of our own (tests/derops/data/yadnp3-der-map.json, read by the peer with plain
JSON), its command handler mirroring outputs to inputs (tests/peers/yadnp3_der.py). The master
takes the same file as its profile. What opendnp3 received is read from its own callbacks."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from gridwire.derops import Der, DerMaster
from gridwire.errors import RequestError
from gridwire.master import OutstationSettings
from tests.support.peers import OutstationPeer, yadnp3_der

pytestmark = pytest.mark.interop

MAP = Path(__file__).parent / "data" / "yadnp3-der-map.json"


@contextlib.asynccontextmanager
async def through_opendnp3(profile: Path) -> AsyncIterator[tuple[OutstationPeer, Der]]:
    """yadnp3 serving MAP, and a DerMaster connected to it whose profile is ``profile``."""
    with yadnp3_der(MAP) as peer:
        master = DerMaster(allow_control=True, tables=profile)
        try:
            settings = OutstationSettings(
                name="y", host="127.0.0.1", port=peer.port, profile="ieee1815.2"
            )
            await master.add(settings)
            await master.idle("y")
            yield peer, master.der("y")
        finally:
            await master.close()


async def test_read_write_verify_enable_disable_through_opendnp3() -> None:
    async with through_opendnp3(MAP) as (peer, der):
        read = await der.read(["Active power", "Frequency", "AO0"], group="volt-var")
        found = {p.address: p for p in read.points}
        assert (found["AI3"].value, found["AI3"].units, found["AI3"].quality) == (
            4224,
            "W",
            "good",
        )
        assert (found["AI4"].value, found["AI4"].raw) == (60.01, 6001)
        assert (found["AO0"].value, found["AO0"].raw) == (240.0, 2400)
        assert (found["BI1"].state, found["BI2"].state) == ("Supported", "Disabled")
        assert [e.function for e in read.exchanges] == ["READ"]

        written = await der.write(
            {"Reference voltage": 241.3, "Active power limit": 55.5, "BO0": "open"},
            verify=True,
        )
        assert (written.accepted, written.verified) == (True, True)
        assert [(p.address, p.sent, p.status) for p in written.points] == [
            ("AO0", 2413, "SUCCESS"),
            ("AO2", 555, "SUCCESS"),
            ("BO0", None, "SUCCESS"),
        ]
        readbacks = [p.readback for p in written.points]
        assert [(r.address, r.value) for r in readbacks if r is not None] == [
            ("AI0", 241.3),
            ("AI2", 55.5),
            ("BI0", False),
        ]
        # opendnp3 received each control once, in the order given, as sent.
        await peer.aexpect("operate", kind="int32", index=0, value=2413, status="SUCCESS")
        await peer.aexpect("operate", kind="int32", index=2, value=555, status="SUCCESS")
        await peer.aexpect("operate", kind="crob", index=0, op_type="LATCH_OFF")
        operates = peer.received("operate")
        assert [(e["kind"], e["index"]) for e in operates] == [
            ("int32", 0),
            ("int32", 2),
            ("crob", 0),
        ]

        floated = await der.write({"AO2": 42.5}, variation=3, verify=True)
        assert floated.verified is True and floated.points[0].readback is not None
        assert floated.points[0].readback.raw == 425
        await peer.aexpect("operate", kind="float32", index=2, value=42.5, raw=425)

        with pytest.raises(RequestError, match=r"AO1 .*: 9 is outside the tables' range 1 to 4"):
            await der.write({"Volt-VAr curve index": 9})

        enabled = await der.enable("volt-var")
        assert (enabled.accepted, enabled.enabled, enabled.status.state) == (  # type: ignore[union-attr]
            True,
            True,
            "Enabled",
        )
        await peer.aexpect("operate", kind="crob", index=1, op_type="LATCH_ON")
        disabled = await der.disable("Enable Volt-VAr Mode", mode="select")
        assert (disabled.accepted, disabled.enabled) == (True, False)
        assert [e.function for e in disabled.exchanges] == ["SELECT", "OPERATE", "READ"]
        await peer.aexpect("select", kind="crob", index=1, op_type="LATCH_OFF")
        await peer.aexpect("operate", kind="crob", index=1, op_type="LATCH_OFF")
        assert len(peer.received("operate")) == 6  # no control was sent twice


async def test_a_range_opendnp3_answers_in_part(tmp_path: Path) -> None:
    # The master's profile names AI5, which the peer's database (AI0-AI4) does not hold.
    # opendnp3 answers the range AI3-AI5 with the points it has and PARAMETER_ERROR; the
    # points that came back are kept, only AI5 is not reported, and nothing is read again.
    document = orjson.loads(MAP.read_bytes())
    document["points"].append(
        {"kind": "AI", "index": 5, "name": "Reactive power", "purpose": "Monitoring"}
    )
    profile = tmp_path / "profile.json"
    profile.write_bytes(orjson.dumps(document))
    async with through_opendnp3(profile) as (_, der):
        read = await der.read(["AI3", "AI4", "Reactive power", "BI1"])
        [exchange] = read.exchanges
        assert "PARAMETER_ERROR" in exchange.indications
        found = {p.address: (p.value, p.quality) for p in read.points}
        assert found == {
            "AI3": (4224, "good"),
            "AI4": (60.01, "good"),
            "AI5": (None, "not_reported"),
            "BI1": (True, "good"),
        }
