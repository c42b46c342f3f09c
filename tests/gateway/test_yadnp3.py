"""The gateway against a third-party DNP3 stack: yadnp3's (opendnp3's) outstation serving a
small DER point map of our own (tests/gateway/data/gateway-der-map.json, read by the peer with
plain JSON), its command handler printing each control as it arrived and mirroring outputs to
inputs (tests/peers/yadnp3_der.py). Each control the event asks for, and each one putting the
DER back after it, arrives once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gridwire.derops import DerMaster
from gridwire.gateway.runner import Gateway
from gridwire.gateway.store import Store
from gridwire.master import OutstationSettings
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import build_config
from tests.gateway.conftest import client_settings, der_control
from tests.gateway.headend_der import DerHeadEnd, Program
from tests.sep2.pki import Pki
from tests.support.peers import yadnp3_der
from tests.support.waiting import until

pytestmark = pytest.mark.interop

MAP = Path(__file__).parent / "data" / "gateway-der-map.json"


async def test_an_event_and_its_end_through_opendnp3_each_control_once(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    base = (
        "<opModConnect>false</opModConnect>"
        "<opModFixedPFInjectW><displacement>90</displacement><excitation>false</excitation>"
        "<multiplier>-2</multiplier></opModFixedPFInjectW>"
        '<csipaus:opModExpLimW xmlns:csipaus="https://csipaus.org/ns"><multiplier>0</multiplier>'
        "<value>2500</value></csipaus:opModExpLimW>"
    )
    program = Program(1, [])
    headend.programs = [program]
    with yadnp3_der(MAP) as peer:
        master = DerMaster(allow_control=True, tables=MAP)
        client = Sep2Client(build_config(client_settings(headend, pki)))
        store = Store(tmp_path / "gw.db")
        gateway = None
        try:
            settings = OutstationSettings(
                name="y", host="127.0.0.1", port=peer.port, profile="ieee1815.2"
            )
            await master.add(settings)
            await master.idle("y")
            gateway = Gateway(client, master.der("y"), store, seed=1)
            await gateway.start()
            await until(lambda: headend.requests_to("/derp/0/derc") > 0, within=10)
            program.controls.append(der_control("F1", int(time.time()) + 1, 2, base))
            await until(lambda: ("F1", 3) in headend.responses(), within=15)
            await until(lambda: not gateway.applier.held.points, within=5)
            await until(lambda: not gateway.applier.held.functions, within=5)
        finally:
            if gateway is not None:
                await gateway.stop()
            await master.close()
            store.close()
        arrived = [
            (e["kind"], e["index"], e["raw"])
            for e in peer.received("operate")
            if e["status"] == "SUCCESS"  # any other would show as missing below
        ]
    # Open, then closed again; pf 0.90 absorbing (excitation false: state 1) and back to 1.00
    # injecting; 2500 W of 5000 W is 50 % (500 tenths), then 100 %; each function enabled
    # for the event and disabled after (it was found disabled): each once, in that order.
    # The event: open, pf 0.90 absorbing (excitation false: state 1), 2500 W of 5000 W as
    # 50 % (500 tenths) in one write, then each function enabled. After it, in one write,
    # each setting as found, then each function disabled (it was found disabled). Each once.
    assert arrived == [
        ("crob", 0, False),
        ("int32", 1, 90),
        ("crob", 3, True),
        ("int32", 0, 500),
        ("crob", 1, True),
        ("crob", 2, True),
        ("crob", 0, True),
        ("int32", 1, 100),
        ("crob", 3, False),
        ("int32", 0, 1000),
        ("crob", 1, False),
        ("crob", 2, False),
    ]
    assert headend.responses() == [("F1", 1), ("F1", 2), ("F1", 3)]
