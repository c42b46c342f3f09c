"""Which cap holds for a Device Profile document (gridwire.operations.limits): a document sent
in a message is bounded by the message cap (4 MiB, over HTTP and the line alike), and one of
the document limit (8 MiB) is given as a file, here the outstation's device_profile. Over
HTTP, a message too large for der.document or der.compare is refused with 413 naming the
cap and the file route; other operations keep the plain answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from gridwire.devprofile.limits import MAX_BYTES
from gridwire.operations.limits import MESSAGE_LIMIT
from gridwire.outstation.server import run_outstation
from gridwire.simulator.der import SimulatedDer
from gridwire.simulator.device_profile import der_device_profile
from tests.service.harness import error, ok, outstation, running_service
from tests.service.harness import transport as open_transport

CLOSE = b"</DNP3DeviceProfileDocument>"


def padded(document: bytes, size: int) -> bytes:
    """``document`` made ``size`` octets long by a comment before its closing tag."""
    head, close, tail = document.rpartition(CLOSE)
    assert close, "the document ends with its root's closing tag"
    room = size - len(document) - len(b"<!--") - len(b"-->")
    assert room > 0
    return head + b"<!--" + b"x" * room + b"-->" + close + tail


async def test_an_eight_mebibyte_document_from_a_file_is_read(tmp_path: Path) -> None:
    device = SimulatedDer()
    async with (
        run_outstation(device, "127.0.0.1", 0) as der,
        running_service() as svc,  # read-only: neither operation commands
        open_transport("http", svc) as api,
    ):
        document = padded(der_device_profile(device, port=der.port), MAX_BYTES)
        assert len(document) == MAX_BYTES == 2 * MESSAGE_LIMIT
        path = tmp_path / "der.xml"
        path.write_bytes(document)
        settings = outstation(der.port, name="der", profile="ieee1815.2", device_profile=str(path))
        ok(await api.call("add", **settings.model_dump(mode="json")))
        layout = ok(await api.call("der.document", "der"))
        assert layout["title"].startswith("gridwire simulated IEEE 1815.2 DER")
        result = ok(await api.call("der.compare", "der"))
        assert (result["declared"], result["served"]) == (741, 741)
        assert result["absent"] == result["undeclared"] == []
        # One octet more is over the document limit, from a file too.
        path.write_bytes(document + b"\n")
        refused = error(await api.call("der.document", "der"), "request")
        assert f"{path} (device_profile of outstation 'der') refused" in refused
        assert "larger than 8 MiB" in refused


async def chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), 1 << 16):
        yield body[start : start + (1 << 16)]


@pytest.mark.parametrize("operation", ["der.document", "der.compare"])
async def test_a_document_over_the_message_cap_is_refused_naming_the_file_route(
    operation: str,
) -> None:
    body = b'{"outstation": "der", "document": "' + b"x" * MESSAGE_LIMIT + b'"}'
    async with running_service() as svc, httpx.AsyncClient(base_url=svc.base_url) as client:
        for streamed in (False, True):  # declared, then streamed without a length
            refused = await client.post(
                f"/api/{operation}",
                content=chunks(body) if streamed else body,
                headers={"content-type": "application/json"},
            )
            assert refused.status_code == 413
            message = error(refused.json(), "request")
            assert message.startswith(f"the message is larger than {MESSAGE_LIMIT} octets; ")
            assert "a Device Profile document over 4 MiB (up to 8 MiB) is given as a file" in (
                message
            )
            assert "device_profile" in message and "--device-profile FILE" in message
        plain = await client.post(
            "/api/status", content=body, headers={"content-type": "application/json"}
        )
        assert plain.status_code == 413
        assert error(plain.json(), "request") == (
            f"the message is larger than {MESSAGE_LIMIT} octets"
        )
