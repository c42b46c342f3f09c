"""The DER procedures against a third-party stack: yadnp3's (opendnp3's) outstation serving a
small point map of our own (tests/derops/data/yadnp3-der-map.json, read by the peer with plain
JSON), its command handler mirroring outputs to inputs (tests/peers/yadnp3_der.py). The master
takes the same file as its profile. What opendnp3 received is read from its own callbacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridwire.derops import DerMaster
from gridwire.errors import RequestError
from gridwire.master import OutstationSettings
from tests.support.peers import yadnp3_der

pytestmark = pytest.mark.interop

MAP = Path(__file__).parent / "data" / "yadnp3-der-map.json"


async def test_read_write_verify_enable_disable_through_opendnp3() -> None:
    with yadnp3_der(MAP) as peer:
        master = DerMaster(allow_control=True, tables=MAP)
        try:
            settings = OutstationSettings(
                name="y", host="127.0.0.1", port=peer.port, profile="ieee1815.2"
            )
            await master.add(settings)
            await master.idle("y")
            der = master.der("y")

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

            with pytest.raises(
                RequestError, match=r"AO1 .*: 9 is outside the tables' range 1 to 4"
            ):
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
        finally:
            await master.close()
