"""The simulated DER's run state (gridwire.simulator.run_state) and the rules it breaks on
purpose (gridwire.simulator.misbehaviour), one test each, on the demo map: BO1 start (mirror
BI12, starting up), BO2 stop (mirror BI13, ceasing to energize), BO3/BO4 the permissions to
start and to stop (mirrors BI16/BI17), BI14 started, BI15 stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.cli import build_parser
from gridwire.cli.sim import device_of, settings_of
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.errors import ConfigError
from gridwire.outstation.controls import BinaryCommand
from gridwire.outstation.points import ONLINE
from gridwire.simulator import SimulatedDer
from gridwire.simulator.config import load_settings

S = CommandStatus
LATCH_ON, LATCH_OFF = 0x03, 0x04
START, STOP, START_PERMISSION, STOP_PERMISSION = 1, 2, 3, 4
STARTING, STOPPING, STARTED, STOPPED = 12, 13, 14, 15


def latch(der: SimulatedDer, index: int, on: bool, now: float = 1.0) -> CommandStatus:
    code = LATCH_ON if on else LATCH_OFF
    return der.control(BinaryCommand(index, code, 1, 0, 0), "direct", now)


def bi(der: SimulatedDer, index: int) -> object:
    return der.database.get("bi", index).value


def test_a_stop_then_a_start_each_take_effect_by_the_next_tick() -> None:
    der = SimulatedDer()
    der.tick(0.0)
    assert (bi(der, STARTED), bi(der, STOPPED)) == (True, False)
    assert latch(der, STOP, True) is S.SUCCESS
    der.tick(1.0)
    assert (bi(der, STARTED), bi(der, STOPPED)) == (False, True)
    assert bi(der, STOPPING) is True and bi(der, STARTING) is False  # held while stopped
    assert latch(der, START, True) is S.SUCCESS
    assert bi(der, STARTING) is True and bi(der, STOPPING) is False  # the stop latch goes off
    der.tick(2.0)
    assert (bi(der, STARTED), bi(der, STOPPED)) == (True, False)
    assert bi(der, STARTING) is False  # the start has completed
    assert der.database.get("bo", START).value is False


def test_a_start_or_a_stop_without_its_permission_is_blocked() -> None:
    der = SimulatedDer()
    assert latch(der, STOP_PERMISSION, False) is S.SUCCESS
    assert bi(der, 17) is False
    assert latch(der, STOP, True) is S.BLOCKED
    der.tick(0.0)
    assert bi(der, STARTED) is True and bi(der, STOPPING) is False
    latch(der, STOP_PERMISSION, True)
    assert latch(der, STOP, True) is S.SUCCESS
    assert latch(der, START_PERMISSION, False) is S.SUCCESS
    assert latch(der, START, True) is S.BLOCKED
    der.tick(1.0)
    assert bi(der, STOPPED) is True and bi(der, STARTING) is False
    assert latch(der, START, False) is S.SUCCESS  # latching off needs no permission


def test_misbehaving_a_start_without_permission_is_accepted() -> None:
    der = SimulatedDer(misbehave=frozenset({"start_without_permission"}))
    latch(der, STOP, True)
    latch(der, START_PERMISSION, False)
    assert latch(der, START, True) is S.SUCCESS
    der.tick(0.0)
    assert bi(der, STARTED) is True
    latch(der, STOP_PERMISSION, False)
    assert latch(der, STOP, True) is S.BLOCKED  # the stop's rule still holds


def test_misbehaving_a_disabled_functions_inputs_keep_online() -> None:
    der = SimulatedDer(misbehave=frozenset({"inputs_online_when_disabled"}))
    assert der.database.get("ai", 301).flags & ONLINE  # volt-var's, disabled at start
    assert latch(der, 29, True) is S.SUCCESS
    assert latch(der, 29, False) is S.SUCCESS
    assert der.database.get("bi", 81).value is False
    assert der.database.get("ai", 301).flags & ONLINE
    assert not SimulatedDer().database.get("ai", 301).flags & ONLINE


def test_an_unknown_misbehaviour_is_refused_naming_the_known() -> None:
    with pytest.raises(ConfigError, match="misbehave: sleep is not one of inputs_online"):
        SimulatedDer(misbehave=frozenset({"sleep"}))


def test_gridwire_sim_takes_the_ders_misbehaviours_beside_the_outstations(
    tmp_path: Path,
) -> None:
    config = tmp_path / "sim.json"
    config.write_text(json.dumps({"der": True, "misbehave": ["start_without_permission"]}))
    args = build_parser().parse_args(
        ["sim", "--config", str(config), "--misbehave", "inputs_online_when_disabled"]
    )
    args.misbehave.append("accept_bad_crc")
    settings = settings_of(args)
    assert settings.outstation.misbehave == {"accept_bad_crc"}
    assert settings.der_misbehave == {"start_without_permission", "inputs_online_when_disabled"}
    device, _ = device_of(settings)
    assert isinstance(device, SimulatedDer) and device.misbehave == settings.der_misbehave
    config.write_text(json.dumps({"misbehave": ["start_without_permission"]}))
    with pytest.raises(ConfigError, match="start_without_permission is the simulated DER's"):
        settings_of(build_parser().parse_args(["sim", "--config", str(config)]))
    config.write_text(json.dumps({"der": True, "misbehave": ["nap"]}))
    with pytest.raises(ConfigError, match=r"nap is not one of accept_bad_crc, .*, inputs_online"):
        load_settings(config)
