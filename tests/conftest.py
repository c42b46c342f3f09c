from __future__ import annotations

import pytest

from tests.support.net import free_port


@pytest.fixture
def port() -> int:
    """A free TCP port on 127.0.0.1, picked at run time."""
    return free_port()
