"""Profiles of the Python API: ``gridwire.master`` knows none itself (it imports nothing of
``gridwire.der``); a Master given no profile source refuses an outstation with a profile,
saying how to give one; ``gridwire.derops.DerMaster`` takes a profile as the CLI does (the
installed tables, else the demo map). Proved against gridwire's simulated DER (its points are
named by the same demo map, so a name can only come from the master's lookup)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gridwire.derops import DerMaster
from gridwire.errors import RequestError
from gridwire.master import Master, OutstationSettings
from gridwire.outstation import run_outstation
from gridwire.simulator import SimulatedDer


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # ~/.gridwire holds no tables: the demo map


def test_the_master_imports_nothing_of_the_point_map() -> None:
    code = (
        "import sys, gridwire.master; "
        "print(sorted(m for m in sys.modules if m.startswith(('gridwire.der', 'gridwire.derops'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_a_der_master_names_points_without_a_source_given() -> None:
    async with run_outstation(SimulatedDer(), "127.0.0.1", 0) as server:
        master = DerMaster()
        try:
            settings = OutstationSettings(
                name="der", host="127.0.0.1", port=server.port, profile="ieee1815.2"
            )
            await master.add(settings)
            exchange = await master.scan("der", "class0")
            named = {(o.type, o.index): o.name for o in exchange.objects if o.type == "ai"}
            # AI537 opens the system meter block of IEEE 1815.2 (checked against AN2018 in
            # tests/der): its name comes from the map, the decoder itself names nothing.
            assert named[("ai", 537)] is not None
            assert "active power" in named[("ai", 537)].lower()
        finally:
            await master.close()


async def test_a_master_without_a_profile_source_refuses_a_profile_saying_how() -> None:
    master = Master()
    try:
        with pytest.raises(RequestError, match=r"no profile source.*DerMaster"):
            await master.add(
                OutstationSettings(name="x", host="127.0.0.1", port=1, profile="ieee1815.2")
            )
        assert master.status().outstations == []
    finally:
        await master.close()


async def test_an_unknown_profile_is_a_request_error_before_connecting() -> None:
    master = DerMaster()
    try:
        with pytest.raises(RequestError, match="unknown profile"):
            await master.add(
                OutstationSettings(name="x", host="127.0.0.1", port=1, profile="nonesuch")
            )
        assert master.status().outstations == []
    finally:
        await master.close()
