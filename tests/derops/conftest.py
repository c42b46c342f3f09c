from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.gridwire holds no tables, so a profile is the demo map (the simulated DER's)."""
    monkeypatch.setenv("HOME", str(tmp_path))
