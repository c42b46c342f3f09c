from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from gridwire.sep2.client import Sep2Client
from gridwire.sep2.config import build_config
from tests.sep2.headend import Device, Fsa, HeadEndDouble, lfdi_of
from tests.sep2.pki import Pki, der_of, make_pki


class SteppedClock:
    """The real clocks, with a wall clock that can be stepped and a monotonic clock that can
    be moved on (time passing), so ages can grow without the test waiting."""

    def __init__(self) -> None:
        self.wall_step = 0.0
        self.elapsed = 0.0

    def wall(self) -> float:
        return time.time() + self.wall_step

    def monotonic(self) -> float:
        return time.monotonic() + self.elapsed


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def headend(pki: Pki) -> Iterator[HeadEndDouble]:
    """A head-end listing three other devices around ours (index 2), paged two at a time; our
    device has an FSA with its own Time, one pointing at /tm, and one with no TimeLink."""
    double = HeadEndDouble(pki)
    other = lfdi_of(der_of(pki.other_device_certificate))
    ours = lfdi_of(pki.device_der)
    double.devices = [
        Device(lfdi="0" * 39 + "1"),
        Device(lfdi="0" * 39 + "2"),
        Device(lfdi=ours, fsas=[Fsa("own"), Fsa("global"), Fsa(None)]),
        Device(lfdi=other),
    ]
    with double:
        yield double


def settings(headend: HeadEndDouble, pki: Pki, **server: Any) -> dict[str, Any]:
    return {
        "server": {"url": headend.url, "retry_initial_seconds": 0.05, "retry_max_seconds": 0.2}
        | server,
        "tls": {
            "ca": str(pki.ca),
            "certificate": str(pki.device_certificate),
            "key": str(pki.device_key),
        },
    }


ClientFactory = Callable[..., Sep2Client]


@pytest.fixture
async def make_client(headend: HeadEndDouble, pki: Pki) -> AsyncIterator[ClientFactory]:
    made: list[Sep2Client] = []

    def factory(
        clock: Any = None, *, tls: dict[str, Any] | None = None, **server: Any
    ) -> Sep2Client:
        data = settings(headend, pki, **server)
        if tls:
            data["tls"] |= tls
        kwargs = {"clock": clock} if clock is not None else {}
        client = Sep2Client(build_config(data), **kwargs)
        made.append(client)
        return client

    yield factory
    for client in made:
        await client.stop()
