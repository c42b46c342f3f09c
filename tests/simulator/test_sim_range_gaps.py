"""``range_gaps`` (how a read naming an index with no point is answered: ``refuse``, the
default, or ``answer`` what there is) as ``gridwire sim`` takes it: the flag ``--range-gaps``
and the settings file's key ``range_gaps``, the flag over the file; then served, a read of
ai 0..12 from yadnp3's master (opendnp3) against the generic database (ai 0..9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.cli import build_parser
from gridwire.cli.sim import settings_of
from gridwire.errors import ConfigError
from tests.simulator.test_cli_sim import sim
from tests.support.peers import yadnp3_master


def gaps(*args: str) -> str:
    return settings_of(build_parser().parse_args(["sim", *args])).outstation.range_gaps


def test_the_flag_and_the_settings_key_with_the_flag_over_the_file(tmp_path: Path) -> None:
    assert gaps() == "refuse"
    assert gaps("--range-gaps", "answer") == "answer"
    settings = tmp_path / "sim.json"
    settings.write_text(json.dumps({"range_gaps": "answer"}))
    assert gaps("--config", str(settings)) == "answer"
    assert gaps("--config", str(settings), "--range-gaps", "refuse") == "refuse"


def test_another_value_is_refused_naming_the_key(tmp_path: Path) -> None:
    settings = tmp_path / "sim.json"
    settings.write_text(json.dumps({"range_gaps": "skip"}))
    with pytest.raises(ConfigError, match=r"range_gaps: 'skip' is not one of refuse, answer"):
        gaps("--config", str(settings))
    with pytest.raises(SystemExit):  # argparse: not one of the choices
        gaps("--range-gaps", "skip")


@pytest.mark.interop
@pytest.mark.parametrize(("setting", "answered"), [("refuse", []), ("answer", list(range(10)))])
def test_served_a_read_over_a_gap_is_refused_or_answered(setting: str, answered: list[int]) -> None:
    with sim("--range-gaps", setting) as (port, _), yadnp3_master(port) as master:
        read = master.read(30, 1, 0, 12)  # ai 10..12 do not exist
        assert sorted(v["index"] for v in read.values if v["type"] == "analog") == answered
