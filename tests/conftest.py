from __future__ import annotations

import pytest

from tests.support.net import free_port
from tests.support.tshark import tshark_path


@pytest.fixture
def port() -> int:
    """A free TCP port on 127.0.0.1, picked at run time."""
    return free_port()


@pytest.fixture
def tshark() -> None:
    """tshark is needed to read what the test writes: missing, the test is skipped, or fails
    under CI (see tests.support.tshark.tshark_path)."""
    tshark_path()
