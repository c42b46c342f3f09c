"""File answers an outstation defers (D200), against gridwire's outstation over TCP on
loopback: the master waits for the g70 object that follows a null response, correlated by
request id, handle or block, reading the class the indications name (its own reads: the
master here runs no automatic task) or taking it unsolicited, within the operation's
timeout; point events those reads bring go to the event log once; the gate still reads a
directory listing and a file read as reads."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from gridwire.master import Master, OutstationSettings
from gridwire.master.files import FileOptions, file_info, list_directory, read_file
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database_file import default_database
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import OutstationServer, run_outstation
from tests.master.test_files import CONTENT, Seen

EVERY = ("OPEN_FILE", "CLOSE_FILE", "GET_FILE_INFO", "READ")


@asynccontextmanager
async def deferring(
    root: Path, **config: Any
) -> AsyncIterator[tuple[Master, OutstationServer, Seen]]:
    (root / "a.bin").write_bytes(CONTENT)
    (root / "logs").mkdir()
    settings = OutstationConfig(files=root, **config)
    async with run_outstation(GenericDevice(default_database()), config=settings) as server:
        master = Master()  # no control: listing and reading are reads, deferred or not
        try:
            await master.add(
                OutstationSettings(
                    name="s",
                    host="127.0.0.1",
                    port=server.port,
                    manual=True,  # no automatic task: the procedure reads the events itself
                    confirm=True,
                    response_timeout=5.0,
                )
            )
            await master.idle("s")
            yield master, server, Seen(server)
        finally:
            await master.close()


async def test_deferred_answers_read_from_their_class(tmp_path: Path) -> None:
    async with deferring(tmp_path, files_defer=EVERY, files_event_class=2) as (m, server, seen):
        database = server.session.database
        database.update("bi", 3, True, now=server.clock.monotonic())  # a class 1 event
        listing = await list_directory(m, "s", "/")
        read = await read_file(m, "s", "/a.bin", FileOptions(block_size=2000))
        info = await file_info(m, "s", "/a.bin")
        events = [o for o in m.session("s").events.items() if o.group == 2 and o.index == 3]
        assert server.session.files is not None and not server.session.files.events.waiting()
    assert [e.name for e in listing.entries or []] == ["a.bin", "logs"]
    assert read.data is not None and base64.b64decode(read.data) == CONTENT
    assert info.entry is not None and info.entry.size == len(CONTENT)
    # open, blocks, close: each answered later (3 blocks of 2000 for the file)
    assert (listing.deferred, read.deferred, info.deferred) == (3, 5, 1)
    assert read.requests > 5  # class reads besides the file requests
    assert seen.functions[:3] == ["OPEN_FILE", "READ", "CLOSE_FILE"]  # class reads aside
    # the class reads the file procedure made took the point event in once, for the event log
    assert len(events) == 1


async def test_deferred_answer_taken_unsolicited(tmp_path: Path) -> None:
    config: dict[str, Any] = {"unsolicited": True, "unsolicited_classes": (1, 2, 3)}
    async with deferring(tmp_path, files_defer=("OPEN_FILE",), **config) as (m, _, seen):
        listing = await list_directory(m, "s", "/logs")
        unsolicited = m.session("s").counts.get("unsolicited", 0)
    assert (listing.complete, listing.entries, listing.deferred) == (True, [], 1)
    assert unsolicited >= 2  # the start's null one, and the one carrying the g70v4
    assert seen.functions == ["OPEN_FILE", "READ", "CLOSE_FILE"]


async def test_deferred_wait_bounded_by_the_timeout(tmp_path: Path) -> None:
    async with deferring(tmp_path, files_defer=("OPEN_FILE",)) as (m, server, _):
        files = server.session.files
        assert files is not None
        files.events.add = lambda objects: None  # type: ignore[method-assign]  # never sent
        result = await list_directory(m, "s", "/", FileOptions(seconds=1.6))
    assert (result.complete, result.status, result.aborted) == (False, "TIMEOUT", None)
    assert "not done within 1.6 s" in result.message
    assert result.requests >= 2  # classes 1, 2 and 3 read while no indication named one
