"""The gateway end to end, in-process: the head-end double over real mutual TLS serving DER
programs, gridwire's simulated 1815.2 DER over DNP3 on loopback. What the DER holds is read
back from the DER (its mirror inputs, through a second read), and the Responses from the
double's sink."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.gateway.conftest import der_control, rig
from tests.gateway.headend_der import DerHeadEnd, Program
from tests.sep2.pki import Pki
from tests.support.waiting import until

DEFAULT = (
    "<DERControlBase><opModMaxLimW>10000</opModMaxLimW></DERControlBase><setGradW>27</setGradW>"
)


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/.gridwire holds no tables: the demo map


async def generating_limit(rig_der: object) -> float | None:
    read = await rig_der.read(["AI149"])  # type: ignore[attr-defined]
    return read.points[0].value  # type: ignore[no-any-return]


async def test_an_event_runs_then_the_default_holds_and_responses_1_2_3(
    headend: DerHeadEnd, pki: Pki, tmp_path: Path
) -> None:
    now = int(time.time())
    headend.programs = [
        Program(1, [der_control("A1", now + 4, 3, "<opModMaxLimW>5000</opModMaxLimW>")], DEFAULT)
    ]
    async with rig(headend, pki, tmp_path / "gw.db") as r:
        await until(lambda: headend.responses() == [("A1", 1)], within=10)
        assert await generating_limit(r.der) == 100.0  # the default, before the event
        await until(lambda: ("A1", 2) in headend.responses(), within=10)
        assert await generating_limit(r.der) == 50.0
        await until(lambda: ("A1", 3) in headend.responses(), within=10)
        assert await generating_limit(r.der) == 100.0
        assert headend.responses() == [("A1", 1), ("A1", 2), ("A1", 3)]
