"""The simulated DER's curve lock broken on purpose (``accept_locked_curve_edits``, a rule of
gridwire.simulator.misbehaviour that ``gridwire sim --der --misbehave`` and the settings key
``misbehave`` take): an edit of a curve an enabled function names is accepted, where the
simulated DER otherwise refuses it (AUTOMATION_INHIBIT, DESIGN "curve block statuses")."""

from __future__ import annotations

import json
from pathlib import Path

from gridwire.cli import build_parser
from gridwire.cli.sim import device_of, settings_of
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.outstation.controls import AnalogCommand, BinaryCommand
from gridwire.simulator import SimulatedDer

LATCH_ON = 0x03
VOLT_VAR_ENABLE, CURVE_TYPE, FIRST_X = 29, 245, 249  # curve 1, shown, is volt-var's (AO217)


def edits_of_a_locked_curve(der: SimulatedDer) -> list[CommandStatus]:
    enable = der.control(BinaryCommand(VOLT_VAR_ENABLE, LATCH_ON, 1, 0, 0), "direct", 1.0)
    assert enable is CommandStatus.SUCCESS
    edits = ((FIRST_X, 90), (CURVE_TYPE, 4))
    return [der.control(AnalogCommand(i, v, 1), "direct", 1.0) for i, v in edits]


def test_the_curve_lock_is_kept_unless_told_to_misbehave() -> None:
    assert edits_of_a_locked_curve(SimulatedDer()) == [CommandStatus.AUTOMATION_INHIBIT] * 2
    der = SimulatedDer(misbehave=frozenset({"accept_locked_curve_edits"}))
    assert edits_of_a_locked_curve(der) == [CommandStatus.SUCCESS] * 2
    assert der.curves is not None
    assert der.curves.curves[1].type == 4 and der.curves.curves[1].points[0] == (90, 44)


def test_gridwire_sim_takes_accept_locked_curve_edits(tmp_path: Path) -> None:
    args = build_parser().parse_args(["sim", "--der", "--misbehave", "accept_locked_curve_edits"])
    device, _ = device_of(settings_of(args))
    assert isinstance(device, SimulatedDer)
    assert device.misbehave == {"accept_locked_curve_edits"}
    config = tmp_path / "sim.json"
    config.write_text(json.dumps({"der": True, "misbehave": ["accept_locked_curve_edits"]}))
    settings = settings_of(build_parser().parse_args(["sim", "--config", str(config)]))
    assert settings.der_misbehave == {"accept_locked_curve_edits"}
