"""The file operations through the service, over HTTP (each answer checked against the OpenAPI
document the service serves) and the line service, against gridwire's outstation serving a
directory: listed, read and written without/with --allow-control, bad parameters refused."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database_file import default_database
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import run_outstation
from tests.service.harness import error, ok, outstation, running_service, transport


@pytest.mark.parametrize("kind", ["http", "line"])
async def test_file_operations_without_control(tmp_path: Path, kind: str) -> None:
    (tmp_path / "a.txt").write_bytes(b"hello world\n")
    config = OutstationConfig(files=tmp_path, files_writable=True)
    async with (
        run_outstation(GenericDevice(default_database()), config=config) as server,
        running_service(outstations=[outstation(server.port)]) as running,
        transport(kind, running) as api,
    ):
        await running.master.idle("y")
        listed = ok(await api.call("file.list", "y", path="/"))
        read = ok(await api.call("file.read", "y", path="/a.txt"))
        info = ok(await api.call("file.info", "y", path="/a.txt"))
        missing = ok(await api.call("file.read", "y", path="/b.txt"))
        refused = error(
            await api.call("file.write", "y", path="/b.txt", data="aGk="), "not_allowed"
        )
        bad = error(await api.call("file.read", "y", path="/a.txt", block_size=0), "request")
    assert [(e["name"], e["size"], e["mode"]) for e in listed["entries"]] == [
        ("a.txt", 12, "rw-r--r--")
    ]
    assert base64.b64decode(read["data"]) == b"hello world\n" and read["complete"] is True
    assert info["entry"]["type"] == "file"
    assert (missing["complete"], missing["status"]) == (False, "FILE_NOT_FOUND")
    assert "--allow-control" in refused
    assert "block_size" in bad
    assert not (tmp_path / "b.txt").exists()


async def test_file_write_with_control(tmp_path: Path) -> None:
    config = OutstationConfig(files=tmp_path, files_writable=True)
    source = tmp_path / "local.bin"
    source.write_bytes(b"\x00\x01" * 1500)
    async with (
        run_outstation(GenericDevice(default_database()), config=config) as server,
        running_service(allow_control=True, outstations=[outstation(server.port)]) as running,
        transport("http", running) as api,
    ):
        await running.master.idle("y")
        written = ok(await api.call("file.write", "y", path="/b.txt", data="aGk="))
        copied = ok(await api.call("file.write", "y", path="/c.bin", source=str(source)))
        both = error(
            await api.call("file.write", "y", path="/d", data="aGk=", source=str(source)),
            "request",
        )
        not64 = error(await api.call("file.write", "y", path="/d", data="!!"), "request")
        deleted = ok(await api.call("file.delete", "y", path="/b.txt"))
    assert written["complete"] and written["size"] == 2
    assert copied["complete"] and (tmp_path / "c.bin").read_bytes() == b"\x00\x01" * 1500
    assert "one of them" in both and "base64" in not64
    assert deleted["complete"] and not (tmp_path / "b.txt").exists()
