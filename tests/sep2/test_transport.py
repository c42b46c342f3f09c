"""Errors that name their cause (issue 9, item 13): a head-end that rejects this device's
certificate after the handshake (TLS 1.3), one that never does the handshake, one that never
answers and one that drips an octet at a time, each against a real socket on 127.0.0.1; and
a failure nothing foresaw logs its traceback once, not at every retry."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import ssl
import time
from collections.abc import Iterator

import pytest

from gridwire.sep2.errors import HandshakeRefused, HeadEndError, Sep2Error, TimedOut
from gridwire.sep2.identity import identity_from_der
from gridwire.sep2.polling import Poller, PollSettings
from gridwire.sep2.timebase import Timebase
from gridwire.sep2.transport import Fetched
from tests.sep2.conftest import ClientFactory
from tests.sep2.headend import Device, HeadEndDouble, lfdi_of
from tests.sep2.pki import Pki

DEADLINE = 1.0  # timeout_seconds of the client in these tests
ROGUE = "rogue"


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.exc_info is not None]


async def test_tls13_head_end_rejecting_our_certificate(
    pki: Pki, make_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # With TLS 1.3 the client's side of the handshake is over before the head-end judges the
    # certificate: its alert arrives at the first read, as a bare ssl.SSLError.
    double = HeadEndDouble(pki, max_tls=ssl.TLSVersion.TLSv1_3)
    double.devices = [Device(lfdi=lfdi_of(pki.device_der))]
    caplog.set_level(logging.INFO, "gridwire.sep2")
    with double:
        client = make_client(
            url=double.url,
            retry_initial_seconds=0.05,
            retry_max_seconds=0.05,
            tls={
                "minimum_version": "1.3",
                "certificate": str(pki.rogue_device_certificate),
                "key": str(pki.rogue_device_key),
            },
        )
        await client.start()  # the poll loop retries every 50 ms
        await asyncio.sleep(0.6)
        message = client.status().connection.error
        await client.stop()
    assert isinstance(client.poller.last_error, HandshakeRefused)
    assert message == (
        f"head-end {double.url} refused the TLS handshake: it rejected this device's "
        f"certificate (tlsv1 alert unknown ca) (GET {double.url}/dcap)"
    )
    assert tracebacks(caplog) == []
    said = [r.getMessage() for r in caplog.records if "rejected this device" in r.getMessage()]
    assert said == [message]  # once, not at every retry


@contextlib.contextmanager
def mute_listener() -> Iterator[int]:
    """A TCP port that accepts connections (the kernel's backlog) and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


async def test_no_tls_handshake_is_a_timeout_not_a_refusal(make_client: ClientFactory) -> None:
    with mute_listener() as port:
        client = make_client(url=f"https://127.0.0.1:{port}", timeout_seconds=DEADLINE)
        with pytest.raises(TimedOut) as caught:
            await client.observe_once()
    assert str(caught.value) == (
        f"head-end https://127.0.0.1:{port} too slow: no TLS handshake within 1 s "
        f"(GET https://127.0.0.1:{port}/dcap)"
    )


async def test_no_answer_is_a_timeout_not_a_refusal(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    headend.devices[2].fsas = []  # only /tm, so the round fails with it
    client = make_client(timeout_seconds=DEADLINE)
    await client.observe_once()
    headend.silent.add("/tm")
    with pytest.raises(HeadEndError, match=r"every Time resource failed"):
        await client.observe_once()
    error = client.status().connection.error
    assert error is not None
    assert f"too slow: no complete answer within 1 s (GET {headend.url}/tm)" in error
    assert "handshake" not in error


async def test_a_dripping_head_end_fails_the_poll_at_the_deadline(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # One octet every 0.2 s: each read gets something well within any per-read timeout, and
    # the answer would take well over a minute. The request's own deadline ends it.
    client = make_client(timeout_seconds=DEADLINE)
    await client.observe_once()
    assert client.status().connection.state == "connected"
    headend.drip["/dcap"] = 0.2
    started = time.monotonic()
    async with asyncio.timeout(20):
        with pytest.raises(TimedOut) as caught:
            await client.observe_once()
    assert time.monotonic() - started < DEADLINE + 4  # headroom for a loaded machine
    connection = client.status().connection
    assert connection.state == "failed" and connection.error == str(caught.value)
    assert str(caught.value) == (
        f"head-end {headend.url} too slow: no complete answer within 1 s (GET {headend.url}/dcap)"
    )


async def test_a_body_cut_short_by_the_deadline_says_how_much_came(
    headend: HeadEndDouble, make_client: ClientFactory
) -> None:
    # Headers at once, then the body an octet every 0.1 s: the deadline ends it mid-body.
    client = make_client(timeout_seconds=DEADLINE)
    await client.observe_once()
    headend.drip["/dcap"] = 0.1
    headend.drip_headers = False
    with pytest.raises(TimedOut) as caught:
        await client.observe_once()
    found = re.search(
        r"answer not complete within 1 s \((\d+) octets of its body came\)", str(caught.value)
    )
    assert found is not None, str(caught.value)
    assert 1 <= int(found.group(1)) <= 15  # about ten in a second; headroom for a loaded machine


async def test_an_unforeseen_failure_logs_its_traceback_once(
    pki: Pki, caplog: pytest.LogCaptureFixture
) -> None:
    class Exploding:
        async def get(self, href: str, params: dict[str, int | str] | None = None) -> Fetched:
            raise RuntimeError("boom")

    caplog.set_level(logging.INFO, "gridwire.sep2")
    settings = PollSettings(retry_initial_seconds=0.01, retry_max_seconds=0.01)
    poller = Poller(Exploding(), identity_from_der(pki.device_der), Timebase(), settings)
    for _ in range(3):
        poller.poll_now()
        await poller.cycle()
    assert len(tracebacks(caplog)) == 1
    assert isinstance(poller.last_error, Sep2Error) and "boom" in str(poller.last_error)
