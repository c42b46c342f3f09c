"""The curve store's arithmetic and ``gridwire sim``'s settings (file and flags)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.cli import build_parser
from gridwire.cli.sim import device_of, settings_of
from gridwire.der import demo_map, save_map
from gridwire.errors import ConfigError
from gridwire.simulator import SimulatedDer
from gridwire.simulator.config import load_settings
from gridwire.simulator.curves import Curve, CurveStore


def test_curve_interpolation_and_ends() -> None:
    block = demo_map().curve_block
    assert block is not None
    store = CurveStore(block, {1: Curve(2, 129, 2, [(92, 44), (98, 0), (102, 0), (108, -44)])})
    assert store.evaluate(1, 80) == 44.0  # before the first point: its Y
    assert store.evaluate(1, 95) == 22.0  # halfway from (92, 44) to (98, 0)
    assert store.evaluate(1, 100) == 0.0
    assert store.evaluate(1, 105) == -22.0
    assert store.evaluate(1, 120) == -44.0  # beyond the last point: its Y
    assert store.evaluate(2, 100) is None  # an empty curve
    # Editing the number of points trims or pads the curve.
    store.write(2, 2)
    assert store.curves[1].points == [(92, 44), (98, 0)]
    store.write(2, 3)
    assert store.curves[1].points == [(92, 44), (98, 0), (0, 0)]
    window = store.window()
    assert window[:8] == [1, 2, 3, 129, 2, 92, 44, 98]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:20001", ("127.0.0.1", 20001)),
        ("0.0.0.0", ("0.0.0.0", 20000)),
        (":20002", ("127.0.0.1", 20002)),
        ("[::1]:20003", ("::1", 20003)),
        ("[::1]", ("::1", 20000)),
    ],
)
def test_parse_bind(text: str, expected: tuple[str, int]) -> None:
    settings = settings_of(build_parser().parse_args(["sim", "--bind", text]))
    assert (settings.host, settings.port) == expected


def test_settings_file_and_flags_over_it(tmp_path: Path) -> None:
    (tmp_path / "tls").mkdir()
    config = tmp_path / "sim.json"
    config.write_text(
        json.dumps(
            {
                "bind": "127.0.0.1:20100",
                "der": True,
                "unsolicited": True,
                "unsolicited_classes": [1, 2],
                "select_timeout": 4,
                "tls": {"ca": "tls/ca.pem", "certificate": "tls/c.pem", "key": "tls/k.pem"},
            }
        )
    )
    settings = load_settings(config)
    assert (settings.host, settings.port, settings.der) == ("127.0.0.1", 20100, True)
    assert settings.outstation.unsolicited_classes == (1, 2)
    assert settings.outstation.select_timeout == 4.0
    assert settings.tls is not None and settings.tls.ca == str(tmp_path / "tls" / "ca.pem")
    args = build_parser().parse_args(
        ["sim", "--config", str(config), "--bind", ":20200", "--tls-allow", "master-1"]
    )
    merged = settings_of(args)
    assert merged.port == 20200 and merged.tls is not None and merged.tls.allow == ("master-1",)
    config.write_text(json.dumps({"colour": "blue"}))
    with pytest.raises(ConfigError, match="unknown key 'colour'"):
        load_settings(config)


def test_sim_serves_a_map_file(tmp_path: Path) -> None:
    path = tmp_path / "tables.json"
    save_map(demo_map(), path)
    args = build_parser().parse_args(["sim", "--der", "--tables", str(path)])
    device, what = device_of(settings_of(args))
    assert isinstance(device, SimulatedDer) and "simulated DER" in what
    served = [p for p in demo_map().by_kind("AO") if device.serves(p)]
    assert device.database.count("ao") == len(served)
