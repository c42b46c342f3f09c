"""The master's file procedures against gridwire's outstation serving a directory (over TCP on
loopback, in process): a directory listed, a file read whole and compared, written then read
back, error statuses reported, credentials, the control gate, and transfers cut mid-way
(no answer, too large, the caller gone), each aborted on the outstation and reported."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from gridwire.dnp3.app.fragments import Request
from gridwire.dnp3.files import command_status
from gridwire.errors import BadParameter, NotAllowed
from gridwire.master import Master, OutstationSettings
from gridwire.master.files import (
    FileOptions,
    delete_file,
    file_info,
    list_directory,
    read_file,
    write_file,
)
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database_file import default_database
from gridwire.outstation.files import FileServer
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import OutstationServer, run_outstation
from tests.support.waiting import until

CONTENT = bytes(range(256)) * 21 + b"end"  # 5379 octets: 6 blocks of 1024 (the last 259)


class Seen:
    """The file requests the outstation's file server answered, by function name."""

    def __init__(self, server: OutstationServer) -> None:
        self.functions: list[str] = []
        files = server.session.files
        assert files is not None
        self.files: FileServer = files
        answer = files.answer

        def recording(request: Request) -> bytes:
            self.functions.append(request.function.name)
            return answer(request)

        files.answer = recording  # type: ignore[method-assign]


@asynccontextmanager
async def served(
    root: Path, *, control: bool = False, response_timeout: float = 5.0, **config: Any
) -> AsyncIterator[tuple[Master, OutstationServer, Seen]]:
    (root / "a.bin").write_bytes(CONTENT)
    (root / "logs").mkdir(exist_ok=True)
    (root / "logs" / "x.log").write_text("one line\n")
    (root / "a.bin").chmod(0o640)
    settings = OutstationConfig(files=root, **config)
    async with run_outstation(GenericDevice(default_database()), config=settings) as server:
        master = Master(allow_control=control)
        try:
            await master.add(
                OutstationSettings(
                    name="s",
                    host="127.0.0.1",
                    port=server.port,
                    response_timeout=response_timeout,
                )
            )
            await master.idle("s")
            yield master, server, Seen(server)
        finally:
            await master.close()


async def test_directory_listed(tmp_path: Path) -> None:
    async with served(tmp_path) as (master, _, seen):
        top = await list_directory(master, "s", "/")
        logs = await list_directory(master, "s", "/logs")
    assert top.complete and top.status == "SUCCESS"
    assert [(e.name, e.type, e.size, e.mode) for e in top.entries or []] == [
        ("a.bin", "file", len(CONTENT), "rw-r-----"),
        ("logs", "directory", 0, "rwxr-xr-x"),
    ]
    assert [(e.name, e.size) for e in logs.entries or []] == [("x.log", 9)]
    assert seen.functions[:3] == ["OPEN_FILE", "READ", "CLOSE_FILE"]


async def test_read_whole_and_compared(tmp_path: Path) -> None:
    async with served(tmp_path) as (master, server, seen):
        result = await read_file(master, "s", "/a.bin")
        small = await read_file(master, "s", "/a.bin", FileOptions(block_size=100))
        info = await file_info(master, "s", "/a.bin")
        assert server.session.files is not None and not server.session.files._open
    assert result.complete and result.data is not None
    assert base64.b64decode(result.data) == CONTENT
    assert result.sha256 == hashlib.sha256(CONTENT).hexdigest()
    assert (result.size, result.blocks, result.block_size) == (len(CONTENT), 6, 1024)
    assert small.blocks == 54 and small.data == result.data
    assert seen.functions.count("CLOSE_FILE") == 2 and "ABORT_FILE" not in seen.functions
    assert info.entry is not None and (info.entry.type, info.entry.size) == ("file", len(CONTENT))


async def test_read_saved_to_a_path(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "copy.bin"
    root = tmp_path / "root"
    root.mkdir()
    async with served(root) as (master, _, _):
        result = await read_file(master, "s", "/a.bin", to=str(target))
        with pytest.raises(BadParameter, match="does not overwrite"):
            await read_file(master, "s", "/a.bin", to=str(target))
        with pytest.raises(BadParameter, match="absolute"):
            await read_file(master, "s", "/a.bin", to="relative.bin")
    assert result.complete and result.data is None and result.saved_to == str(target)
    assert target.read_bytes() == CONTENT


async def test_written_then_read_back(tmp_path: Path) -> None:
    data = b"settings=1\n" * 400
    async with served(tmp_path, control=True, files_writable=True) as (master, _, seen):
        written = await write_file(master, "s", "/new.cfg", data, permissions=0o600)
        appended = await write_file(master, "s", "/new.cfg", b"tail", append=True)
        back = await read_file(master, "s", "/new.cfg")
        deleted = await delete_file(master, "s", "/new.cfg")
        gone = await read_file(master, "s", "/new.cfg")
    assert written.complete and written.blocks == 5 and written.size == len(data)
    assert appended.complete and appended.blocks == 1
    assert back.data is not None and base64.b64decode(back.data) == data + b"tail"
    assert deleted.complete and not (tmp_path / "new.cfg").exists()
    assert (gone.complete, gone.status) == (False, "FILE_NOT_FOUND")
    writes = seen.functions[: 2 + written.blocks]
    assert writes == ["OPEN_FILE", *["WRITE"] * 5, "CLOSE_FILE"][: len(writes)]


async def test_error_statuses_reported(tmp_path: Path) -> None:
    async with served(tmp_path, control=True) as (master, _, seen):  # read-only directory
        missing = await read_file(master, "s", "/nope.txt")
        escape = await read_file(master, "s", "/../etc/passwd")
        denied = await write_file(master, "s", "/a.bin", b"x")
        undeletable = await delete_file(master, "s", "/a.bin")
        not_a_dir = await list_directory(master, "s", "/a.bin")
    assert (missing.status, missing.message) == ("FILE_NOT_FOUND", "OPEN_FILE: FILE_NOT_FOUND")
    assert escape.status == "FILE_NOT_FOUND"
    assert (denied.complete, denied.status) == (False, "PERMISSION_DENIED")
    assert undeletable.status == "PERMISSION_DENIED" and (tmp_path / "a.bin").exists()
    assert not_a_dir.status == "BAD_ANSWER" and not_a_dir.aborted is None  # closed, then judged
    assert "WRITE" not in seen.functions


async def test_an_outstation_without_files_refuses(tmp_path: Path) -> None:
    async with run_outstation(GenericDevice(default_database())) as server:
        master = Master()
        try:
            await master.add(OutstationSettings(name="s", host="127.0.0.1", port=server.port))
            await master.idle("s")
            result = await list_directory(master, "s", "/")
        finally:
            await master.close()
    assert (result.complete, result.status) == (False, "REFUSED")
    assert "FUNC_NOT_SUPPORTED" in result.indications


async def test_credentials(tmp_path: Path) -> None:
    async with served(tmp_path, files_credentials=("op", "secret")) as (master, _, seen):
        without = await read_file(master, "s", "/a.bin")
        wrong = await read_file(master, "s", "/a.bin", FileOptions(user="op", password="no"))
        right = await read_file(master, "s", "/a.bin", FileOptions(user="op", password="secret"))
    assert without.status == "PERMISSION_DENIED"
    assert (wrong.status, wrong.requests) == ("PERMISSION_DENIED", 1)
    assert right.complete and right.data is not None
    assert seen.functions.count("AUTHENTICATE_FILE") == 2


async def test_the_gate_without_control(tmp_path: Path) -> None:
    """Reading needs no control (OPEN_FILE for reading, CLOSE_FILE of a handle opened so);
    writing and deleting are refused before anything leaves."""
    async with served(tmp_path, files_writable=True) as (master, _, seen):
        read = await read_file(master, "s", "/a.bin")
        with pytest.raises(NotAllowed):
            await write_file(master, "s", "/b", b"x")
        with pytest.raises(NotAllowed):
            await delete_file(master, "s", "/a.bin")
        # a CLOSE_FILE by name of a handle not opened here for reading commands
        with pytest.raises(NotAllowed):
            await master.request("s", "CLOSE_FILE", command_status(1))
        assert not master.session("s").wire.read_handles
    assert read.complete
    assert seen.functions == ["OPEN_FILE", *["READ"] * 6, "CLOSE_FILE"]


def _drop_after(server: OutstationServer, seen: Seen, reads: int) -> Callable[[], None]:
    """The outstation stops answering READs of blocks after ``reads`` of them (it still
    answers everything else); returns what lets it answer again."""
    session = server.session
    receive = session.receive
    count = [0]

    def dropping(data: bytes, now: float) -> list[bytes]:
        before = len(seen.functions)
        out = receive(data, now)
        if seen.functions[before:] == ["READ"]:
            count[0] += 1
            if count[0] > reads:
                return []
        return out

    session.receive = dropping  # type: ignore[method-assign]
    return lambda: setattr(session, "receive", receive)


async def test_a_transfer_cut_midway_is_aborted_and_reported(tmp_path: Path) -> None:
    async with served(tmp_path, response_timeout=0.3) as (master, server, seen):
        _drop_after(server, seen, 2)
        result = await read_file(master, "s", "/a.bin")
        files = server.session.files
        assert files is not None and not files._open  # the abort closed it
        assert not master.session("s").wire.read_handles
    assert (result.complete, result.status, result.aborted) == (False, "TIMEOUT", True)
    assert result.blocks == 2 and result.data is None
    assert "no answer" in result.message and "ABORT_FILE answered SUCCESS" in result.message
    assert seen.functions[-1] == "ABORT_FILE"


async def test_too_large_is_aborted(tmp_path: Path) -> None:
    async with served(tmp_path) as (master, _, seen):
        result = await read_file(master, "s", "/a.bin", FileOptions(max_size=2000))
    assert (result.status, result.aborted, result.blocks) == ("TOO_LARGE", True, 1)
    assert seen.functions[-1] == "ABORT_FILE"


async def test_the_caller_gone_aborts(tmp_path: Path) -> None:
    async with served(tmp_path, response_timeout=5.0) as (master, server, seen):
        _drop_after(server, seen, 1)
        task = asyncio.create_task(read_file(master, "s", "/a.bin"))
        await until(lambda: seen.functions.count("READ") >= 2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        files = server.session.files
        assert files is not None and not files._open
    assert seen.functions[-1] == "ABORT_FILE"


async def test_the_whole_operation_times_out(tmp_path: Path) -> None:
    async with served(tmp_path, response_timeout=5.0) as (master, server, seen):
        _drop_after(server, seen, 1)
        result = await read_file(master, "s", "/a.bin", FileOptions(seconds=0.3))
    assert (result.status, result.aborted) == ("TIMEOUT", True)
    assert "not done within 0.3 s" in result.message
