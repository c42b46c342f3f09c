"""File transfer against yadnp3 (opendnp3 with file transfer), both ways, as subprocesses
(tests/peers/yadnp3_files.py): gridwire's master reads files yadnp3's outstation serves
(whole and compared, its descriptor, its error statuses, a transfer cut mid-way and aborted),
and yadnp3's master reads a file from gridwire's outstation.

yadnp3 numbers file statuses its own way from 5 on (its CLOSE_ABORT is 6, which IEEE
1815-2012 and Wireshark call INVALID_HANDLE): its answer to an ABORT_FILE that worked reads
INVALID_HANDLE here, and is reported as such."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gridwire.master import Master, OutstationSettings
from gridwire.master.files import FileOptions, delete_file, file_info, read_file
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database_file import default_database
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import run_outstation
from tests.support.net import free_port
from tests.support.processes import running

pytestmark = pytest.mark.interop

PEER = str(Path(__file__).parents[1] / "peers" / "yadnp3_files.py")
CONTENT = bytes(range(256)) * 5 + b"tail"  # 1284 octets: yadnp3 serves blocks of 512


@contextmanager
def yadnp3_files(port: int, files: dict[str, bytes]) -> Iterator[subprocess.Popen[str]]:
    command = [sys.executable, PEER, "--port", str(port)]
    for name, data in files.items():
        command += ["--file", f"{name}={data.hex()}"]
    with running(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if '"ready"' in line:
                break
        else:
            raise AssertionError("yadnp3 did not start")
        yield proc


def _events(proc: subprocess.Popen[str]) -> list[dict[str, Any]]:
    assert proc.stdin is not None
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    out, _ = proc.communicate(timeout=20)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


async def test_gridwire_reads_what_yadnp3_serves() -> None:
    port = free_port()
    with yadnp3_files(port, {"/a.bin": CONTENT}) as proc:
        master = Master(allow_control=True)
        try:
            await master.add(OutstationSettings(name="y", host="127.0.0.1", port=port))
            await master.idle("y")
            whole = await read_file(master, "y", "/a.bin")
            info = await file_info(master, "y", "/a.bin")
            missing = await read_file(master, "y", "/nope")
            deleted = await delete_file(master, "y", "/a.bin")
            refused = await read_file(master, "y", "/a.bin", FileOptions(user="u", password="p"))
            cut = await read_file(master, "y", "/a.bin", FileOptions(max_size=600))
        finally:
            await master.close()
        events = _events(proc)
    assert whole.complete and whole.data is not None
    assert base64.b64decode(whole.data) == CONTENT
    assert (whole.block_size, whole.blocks) == (512, 3)
    assert info.entry is not None and (info.entry.size, info.entry.mode) == (1284, "rw-r--r--")
    assert (missing.complete, missing.status) == (False, "FILE_NOT_FOUND")
    assert deleted.status == "PERMISSION_DENIED"
    assert refused.status == "PERMISSION_DENIED"
    # cut after the second block (1024 > 600): aborted on yadnp3, its answer reported
    assert (cut.status, cut.blocks, cut.aborted) == ("TOO_LARGE", 1, False)
    assert cut.message.endswith("ABORT_FILE answered INVALID_HANDLE")
    kinds = [e["event"] for e in events]
    assert kinds.count("open") == 3 and kinds.count("close") == 1  # refused: no open
    aborts = [e for e in events if e["event"] == "abort"]
    assert len(aborts) == 1 and aborts[0]["found"] is True


async def test_yadnp3_reads_what_gridwire_serves(tmp_path: Path) -> None:
    (tmp_path / "a.bin").write_bytes(CONTENT * 3)
    config = OutstationConfig(files=tmp_path)
    async with run_outstation(GenericDevice(default_database()), config=config) as server:
        reader = await asyncio.create_subprocess_exec(
            sys.executable,
            PEER,
            "--port",
            str(server.port),
            "--read",
            "/a.bin",
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            out, _ = await asyncio.wait_for(reader.communicate(), 60)
        finally:
            if reader.returncode is None:
                reader.kill()
                await reader.wait()
    events = {e["event"]: e for e in map(json.loads, out.decode().splitlines())}
    assert events["read"]["status"] == "SUCCESS", events
    assert bytes.fromhex(events["read"]["data"]) == CONTENT * 3
    assert (events["info"]["status"], events["info"]["size"]) == ("SUCCESS", len(CONTENT) * 3)
