"""``gridwire sim``'s files settings: ``--files DIR [--files-writable] [--files-defer REQUEST]``
and the settings file's ``files`` / ``files_writable`` / ``files_defer`` (relative to the file),
refused when they cannot be used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridwire.cli import build_parser
from gridwire.cli.sim import settings_of
from gridwire.errors import ConfigError


def _settings(*argv: str) -> object:
    return settings_of(build_parser().parse_args(["sim", *argv]))


def test_flags(tmp_path: Path) -> None:
    settings = settings_of(build_parser().parse_args(["sim", "--files", str(tmp_path)]))
    assert (settings.outstation.files, settings.outstation.files_writable) == (tmp_path, False)
    writable = settings_of(
        build_parser().parse_args(["sim", "--files", str(tmp_path), "--files-writable"])
    )
    assert writable.outstation.files_writable is True
    with pytest.raises(ConfigError, match="needs --files"):
        _settings("--files-writable")
    with pytest.raises(ConfigError, match="not a directory"):
        _settings("--files", str(tmp_path / "absent"))


def test_settings_file(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    config = tmp_path / "sim.json"
    config.write_text(json.dumps({"files": "shared", "files_writable": True}))
    settings = settings_of(build_parser().parse_args(["sim", "--config", str(config)]))
    assert settings.outstation.files == (tmp_path / "shared").resolve()
    assert settings.outstation.files_writable is True
    config.write_text(json.dumps({"files_writable": "yes"}))
    with pytest.raises(ConfigError, match="files_writable"):
        _settings("--config", str(config))


def test_deferred_file_requests(tmp_path: Path) -> None:
    flags = ("--files", str(tmp_path), "--files-defer", "OPEN_FILE", "--files-defer", "READ")
    settings = settings_of(build_parser().parse_args(["sim", *flags]))
    assert settings.outstation.files_defer == ("OPEN_FILE", "READ")
    with pytest.raises(ConfigError, match="--files-defer needs --files"):
        _settings("--files-defer", "OPEN_FILE")
    with pytest.raises(SystemExit):  # argparse names the choices
        _settings("--files", str(tmp_path), "--files-defer", "open")
    config = tmp_path / "sim.json"
    config.write_text(json.dumps({"files": ".", "files_defer": ["CLOSE_FILE"]}))
    settings = settings_of(build_parser().parse_args(["sim", "--config", str(config)]))
    assert settings.outstation.files_defer == ("CLOSE_FILE",)
    config.write_text(json.dumps({"files": ".", "files_defer": ["SHRED_FILE"]}))
    with pytest.raises(ConfigError, match="files_defer: SHRED_FILE"):
        _settings("--config", str(config))
    config.write_text(json.dumps({"files": ".", "files_defer": "OPEN_FILE"}))
    with pytest.raises(ConfigError, match="files_defer: a list"):
        _settings("--config", str(config))
