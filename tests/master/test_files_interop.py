"""File transfer with ``gridwire sim --files DIR --files-writable`` as a user runs it (a
subprocess): its directory listed, a file read whole and compared, a file written then read
back; every file frame the master wrote is read by Wireshark's dissector (tshark) as the
procedure it is (function, file name, mode, handle, block number, last block)."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest

from gridwire.master import Master, OutstationSettings
from gridwire.master.files import FileOptions, list_directory, read_file, write_file
from tests.support.net import free_port
from tests.support.processes import running
from tests.support.tshark import tshark_fields

pytestmark = pytest.mark.interop


async def test_sim_serves_its_directory_and_tshark_reads_the_frames(tmp_path: Path) -> None:
    served = tmp_path / "served"
    (served / "logs").mkdir(parents=True)
    content = b"line\n" * 700  # 3500 octets: 4 blocks of 1000
    (served / "events.log").write_bytes(content)
    port = free_port()
    command = [sys.executable, "-m", "gridwire", "sim", "--bind", f"127.0.0.1:{port}"]
    command += ["--files", str(served), "--files-writable"]
    with running(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        printed = [proc.stdout.readline() for _ in range(2)]
        assert "listening on TCP" in printed[0], printed
        assert f"serving the files of {served} (writable)" in printed[1]
        master = Master(allow_control=True)
        try:
            await master.add(OutstationSettings(name="s", host="127.0.0.1", port=port))
            await master.idle("s")
            listed = await list_directory(master, "s", "/")
            read = await read_file(master, "s", "/events.log", FileOptions(block_size=1000))
            written = await write_file(master, "s", "/new.txt", b"abc" * 400)
            back = await read_file(master, "s", "/new.txt")
            pcap = base64.b64decode(master.capture("s").pcap)
        finally:
            await master.close()
    assert [(e.name, e.type, e.size) for e in listed.entries or []] == [
        ("events.log", "file", len(content)),
        ("logs", "directory", 0),
    ]
    assert read.data is not None and base64.b64decode(read.data) == content
    assert read.blocks == 4
    assert written.complete and (served / "new.txt").read_bytes() == b"abc" * 400
    assert back.data is not None and base64.b64decode(back.data) == b"abc" * 400

    path = tmp_path / "files.pcap"
    path.write_bytes(pcap)
    fields = [
        "dnp3.al.func",
        "dnp3.al.file_name",
        "dnp3.al.file.mode",
        "dnp3.al.file.handle",
        "dnp3.al.file.blocknum",
        "dnp3.al.file.lastblock",
        "_ws.malformed",
    ]
    rows = tshark_fields(path, port, fields, f"tcp.dstport=={port} && dnp3.al.func")
    assert rows and not any(row[-1] for row in rows)  # no frame of the master malformed
    by_function: dict[str, list[list[str]]] = {}
    for row in rows:
        by_function.setdefault(row[0], []).append(row[1:6])
    # OPEN_FILE (25): "/" then "/events.log" for reading (mode 1), "/new.txt" writing (2)
    opens = [(r[0], r[1]) for r in by_function["25"]]
    assert opens == [("/", "1"), ("/events.log", "1"), ("/new.txt", "2"), ("/new.txt", "1")]
    # READ (1) of g70v5 naming handle and block (tshark shows them in hex): the directory
    # (handle 1) in one block, the log (handle 2) blocks 0-3, the new file (4) blocks 0-1;
    # a read never marks a block the last
    reads = [(int(r[2], 16), int(r[3], 16), r[4]) for r in by_function["1"] if r[2]]
    assert reads == [(1, 0, "0")] + [(2, b, "0") for b in range(4)] + [(4, 0, "0"), (4, 1, "0")]
    # WRITE (2) of blocks 0 and 1 of handle 3, the last with bit 31 (1200 octets: 1024 + 176)
    writes = [(int(r[2], 16), int(r[3], 16), r[4]) for r in by_function["2"] if r[2]]
    assert writes == [(3, 0, "0"), (3, 1, "1")]
    # CLOSE_FILE (26) of each handle
    assert [int(r[2], 16) for r in by_function["26"]] == [1, 2, 3, 4]
