"""One nats-server for each module of the cluster's tests that asks for ``server``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.nats import NatsServer, nats_server


@pytest.fixture(scope="module")
def server() -> Iterator[NatsServer]:
    with nats_server() as running:
        yield running
