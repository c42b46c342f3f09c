"""The DER's connection lost while an event starts: the event goes on by the head-end's clock
(started is posted on time), nothing is taken as applied, and the control is sent once the DER
is back, while the event still runs; then the default after it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gridwire.derops import DerMaster
from gridwire.gateway.runner import Gateway
from gridwire.gateway.store import Store
from gridwire.master import OutstationSettings
from gridwire.outstation import run_outstation
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import build_config
from tests.gateway.conftest import CountingDer, client_settings, der_control
from tests.gateway.headend_der import DerHeadEnd, Program
from tests.sep2.pki import Pki
from tests.support.waiting import until

DEFAULT = "<DERControlBase><opModMaxLimW>10000</opModMaxLimW></DERControlBase>"


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/.gridwire holds no tables: the demo map


async def test_a_control_waits_for_the_der_to_come_back(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    program = Program(1, [], DEFAULT)
    headend.programs = [program]
    sim = CountingDer()
    served = run_outstation(sim, "127.0.0.1", 0)
    server = await served.__aenter__()
    port = server.port
    master = DerMaster(allow_control=True)
    client = Sep2Client(build_config(client_settings(headend, pki)))
    store = Store(tmp_path / "gw.db")
    gateway: Gateway | None = None
    try:
        await master.add(
            OutstationSettings(
                name="der", host="127.0.0.1", port=port, profile="ieee1815.2", reconnect=0.3
            )
        )
        gateway = Gateway(client, master.der("der"), store, post_seconds=None)
        await gateway.start()
        await until(lambda: gateway.surveyed and gateway.last is not None, within=10)
        await served.__aexit__(None, None, None)  # the DER goes away
        program.controls.append(
            der_control("1A", int(time.time()) + 1, 3, "<opModMaxLimW>5000</opModMaxLimW>")
        )
        await until(lambda: ("1A", 2) in headend.responses(), within=10)
        await until(lambda: gateway.der_error is not None, within=10)
        assert ("ao", 88, 500) not in sim.received
        served = run_outstation(sim, "127.0.0.1", port)  # back, on the same port
        await served.__aenter__()
        await until(lambda: ("ao", 88, 500) in sim.received, within=10)
        await until(lambda: ("1A", 3) in headend.responses(), within=10)
        await until(lambda: ("ao", 88, 1000) in sim.received, within=5)
    finally:
        if gateway is not None:
            await gateway.stop()
        await master.close()
        store.close()
        await served.__aexit__(None, None, None)
    assert [c for c in sim.received if c[:2] == ("ao", 88)] == [("ao", 88, 500), ("ao", 88, 1000)]
    assert headend.responses() == [("1A", 1), ("1A", 2), ("1A", 3)]
