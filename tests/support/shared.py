"""Third-party data under ../shared (next to the checkout). Tests read it from there and skip
with a clear reason where it is absent; nothing of it is copied into the project."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared"


def shared_file(relative: str) -> Path:
    path = SHARED / relative
    if not path.is_file():
        pytest.skip(f"third-party data {relative} is absent: expected at {path}")
    return path
