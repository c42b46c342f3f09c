"""Shared pieces of the gateway's tests: the PKI, the DER head-end double, gridwire's
simulated DER served in-process, and a gateway wired to both."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gridwire.derops import Der, DerMaster
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.gateway.runner import Gateway
from gridwire.gateway.store import Store
from gridwire.master import OutstationSettings
from gridwire.outstation import run_outstation
from gridwire.outstation.controls import BinaryCommand, Command, Mode
from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import build_config
from gridwire.simulator import SimulatedDer
from tests.gateway.headend_der import DerHeadEnd
from tests.sep2.headend import Device, Fsa, lfdi_of
from tests.sep2.pki import Pki, make_pki
from tests.support.waiting import until

NS = "urn:ieee:std:2030.5:ns"


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def headend(pki: Pki) -> Iterator[DerHeadEnd]:
    double = DerHeadEnd(pki)
    double.devices = [
        Device(lfdi="0" * 39 + "1"),
        Device(lfdi=lfdi_of(pki.device_der), fsas=[Fsa("own")]),
    ]
    with double:
        yield double


def client_settings(headend: DerHeadEnd, pki: Pki) -> dict[str, Any]:
    return {
        "server": {"url": headend.url, "retry_initial_seconds": 0.05, "retry_max_seconds": 0.5},
        "tls": {
            "ca": str(pki.ca),
            "certificate": str(pki.device_certificate),
            "key": str(pki.device_key),
        },
    }


def der_control(
    mrid: str,
    start: int,
    duration: int,
    base: str,
    *,
    created: int | None = None,
    status: int = 0,
    rs: int = 0,
) -> str:
    """A DERControl as IEEE 2030.5's schema orders its elements, replies to /rsp."""
    created = int(time.time()) if created is None else created
    return (
        f'<DERControl href="/derc/{mrid}" replyTo="/rsp" responseRequired="03">'
        f"<mRID>{mrid}</mRID><description>event {mrid}</description>"
        f"<creationTime>{created}</creationTime>"
        f"<EventStatus><currentStatus>{status}</currentStatus><dateTime>{created}</dateTime>"
        "<potentiallySuperseded>false</potentiallySuperseded></EventStatus>"
        f"<interval><duration>{duration}</duration><start>{start}</start></interval>"
        f"<randomizeStart>{rs}</randomizeStart>"
        f"<DERControlBase>{base}</DERControlBase></DERControl>"
    )


class CountingDer(SimulatedDer):
    """gridwire's simulated DER, keeping every control it was asked to carry out (an operate
    or a direct operate, not a select): ("bo", index, code) or ("ao", index, value)."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[tuple[str, int, int | float]] = []

    def control(self, command: Command, mode: Mode, now: float) -> CommandStatus:
        if mode != "select":
            if isinstance(command, BinaryCommand):
                self.received.append(("bo", command.index, command.code))
            else:
                self.received.append(("ao", command.index, command.value))
        return super().control(command, mode, now)


@dataclass
class Rig:
    headend: DerHeadEnd
    gateway: Gateway
    der: Der
    sim: CountingDer
    store_path: Path


@contextlib.asynccontextmanager
async def rig(headend: DerHeadEnd, pki: Pki, store_path: Path, seed: int = 1) -> AsyncIterator[Rig]:
    sim = CountingDer()
    async with run_outstation(sim, "127.0.0.1", 0) as server:
        master = DerMaster(allow_control=True)
        client = Sep2Client(build_config(client_settings(headend, pki)))
        store = Store(store_path)
        try:
            await master.add(
                OutstationSettings(
                    name="der", host="127.0.0.1", port=server.port, profile="ieee1815.2"
                )
            )
            der = master.der("der")
            gateway = Gateway(client, der, store, seed=seed)
            await gateway.start()
            # Up: the head-end's clock observed and the programs read once, so a test can
            # make its events just ahead of now, the gateway's start-up not counted.
            await until(lambda: gateway.last is not None, within=20)
            yield Rig(headend, gateway, der, sim, store_path)
        finally:
            await gateway.stop()
            await master.close()
            store.close()
