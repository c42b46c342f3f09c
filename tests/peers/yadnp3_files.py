"""yadnp3 (opendnp3) file transfer as a test peer, both ends:
``python tests/peers/yadnp3_files.py --port P --file NAME=HEX [--file ...]`` serves files;
``python tests/peers/yadnp3_files.py --port P --read NAME`` reads one from an outstation.

Its outstation with an ``IFileHandler`` that serves the files given (read-only, blocks of at
most the size the master asks for) and answers FILE_NOT_FOUND for any other name. Prints
(JSON lines): ``ready``, then one line per callback (``open``, ``read_block``, ``close``,
``abort``, ``info``, ``delete``, ``authenticate``) with what it was given and answered. Runs
until stdin closes or ``quit`` is read. The reader prints ``read`` (status, summary and the
data in hex) and ``info`` (its GET_FILE_INFO of the same name), then ends.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any

import opendnp3 as o
from peerio import emit, wait_listening
from yadnp3_channels import client_channel, manager, server_channel

BLOCK = 512


class Files(o.IFileHandler):  # type: ignore[misc]
    def __init__(self, files: dict[str, bytes]) -> None:
        super().__init__()
        self.files = files
        self.open: dict[int, tuple[str, int]] = {}
        self.next_handle = 0x100

    def OpenFile(
        self, name: str, key: int, permissions: Any, mode: Any, block: int, request: int
    ) -> Any:
        result = o.FileOpenResult()
        data = self.files.get(name)
        if data is None or mode != o.FileMode.READ:
            result.status = o.FileStatus.FILE_NOT_FOUND
            result.fileHandle, result.fileSize, result.maxBlockSize = 0, 0, 0
        else:
            handle = self.next_handle
            self.next_handle += 1
            size = min(int(block) or BLOCK, BLOCK)
            self.open[handle] = (name, size)
            result.status = o.FileStatus.SUCCESS
            result.fileHandle, result.fileSize, result.maxBlockSize = handle, len(data), size
        emit("open", name=name, mode=mode.name, block=int(block), status=result.status.name)
        return result

    def ReadBlock(self, handle: int, block: int) -> Any:
        result = o.FileBlockResult()
        opened = self.open.get(int(handle))
        if opened is None:
            result.status, result.data, result.lastBlock = o.FileStatus.NOT_OPENED, [], True
        else:
            name, size = opened
            data = self.files[name]
            start = int(block) * size
            result.status = o.FileStatus.SUCCESS
            result.data = list(data[start : start + size])
            result.lastBlock = start + size >= len(data)
        emit("read_block", handle=int(handle), block=int(block), status=result.status.name)
        return result

    def CloseFile(self, handle: int, request: int) -> Any:
        found = self.open.pop(int(handle), None) is not None
        emit("close", handle=int(handle), found=found)
        return o.FileStatus.SUCCESS if found else o.FileStatus.NOT_OPENED

    def AbortFile(self, handle: int) -> None:
        emit("abort", handle=int(handle), found=self.open.pop(int(handle), None) is not None)

    def GetFileInfo(self, name: str) -> Any:
        result = o.FileCommandResult()
        data = self.files.get(name)
        if data is None:
            result.status = o.FileStatus.FILE_NOT_FOUND
        else:
            info = o.FileInfo()
            info.fileName, info.type, info.size = name, o.FileType.SIMPLE_FILE, len(data)
            info.permissions = o.FilePermissions.FromRaw(0o644)
            result.status, result.info = o.FileStatus.SUCCESS, info
        emit("info", name=name, status=result.status.name)
        return result

    def DeleteFile(self, name: str) -> Any:
        emit("delete", name=name)
        return o.FileStatus.PERMISSION_DENIED

    def AuthenticateFile(self, user: str, password: str) -> Any:
        result = o.OutstationFileAuthResult()
        result.status, result.authKey = o.FileStatus.PERMISSION_DENIED, 0
        emit("authenticate", user=user)
        return result


class Commands(o.ICommandHandler):  # type: ignore[misc]
    def Begin(self) -> None:
        pass

    def End(self) -> None:
        pass

    def Select(self, command: Any, index: int) -> Any:
        return o.CommandStatus.NOT_SUPPORTED

    def Operate(self, command: Any, index: int, handler: Any, op_type: Any) -> Any:
        return o.CommandStatus.NOT_SUPPORTED


class Application(o.IOutstationApplication):  # type: ignore[misc]
    pass


class Values(o.ISOEHandler):  # type: ignore[misc]
    def BeginFragment(self, info: Any) -> None:
        pass

    def EndFragment(self, info: Any) -> None:
        pass

    def Process(self, info: Any, values: list[Any]) -> None:
        pass


class MasterApplication(o.IMasterApplication):  # type: ignore[misc]
    def AssignClassDuringStartup(self) -> bool:
        return False


def read(args: argparse.Namespace) -> None:
    """Read one file with yadnp3's master and print what it got."""
    mgr, keep = manager(lambda *_: None)
    channel = client_channel(mgr, args, 0, 100, keep)
    config = o.MasterStackConfig()
    config.link.LocalAddr, config.link.RemoteAddr = args.remote, args.local
    config.master.responseTimeout = o.TimeDuration.Milliseconds(3000)
    values, application = Values(), MasterApplication()
    keep += [values, application]
    master = channel.AddMaster("master", values, application, config)
    master.Enable()
    done = threading.Event()
    got: list[Any] = []

    def finished(result: Any) -> None:
        got.append(result)
        done.set()

    def ask(start: Any) -> Any:
        """The task's result; tasks started before the connection is up are tried again."""
        for _ in range(50):
            done.clear()
            got.clear()
            start(finished)
            if not done.wait(20):
                return None
            if "NO_COMMS" not in str(got[0].summary):
                return got[0]
            time.sleep(0.2)
        return None

    result = ask(lambda callback: master.ReadFile(args.read, callback))
    if result is None:
        emit("error", message="no read result")
    else:
        emit(
            "read",
            status=result.statusCode.name,
            summary=str(result.summary),
            data=bytes(result.data).hex(),
        )
    info = ask(lambda callback: master.GetFileInfo(args.read, callback))
    if info is not None:
        emit(
            "info",
            status=info.statusCode.name,
            summary=str(info.summary),
            name=info.info.fileName,
            size=int(info.info.size),
        )
    mgr.Shutdown()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--local", type=int, default=1024)
    parser.add_argument("--remote", type=int, default=1)
    parser.add_argument("--tls-ca", default=None)
    parser.add_argument("--tls-certificate", default=None)
    parser.add_argument("--tls-key", default=None)
    parser.add_argument("--file", action="append", default=[], metavar="NAME=HEX")
    parser.add_argument("--read", metavar="NAME", help="read NAME from an outstation at --port")
    args = parser.parse_args()
    if args.read is not None:
        read(args)
        return
    files = {name: bytes.fromhex(octets) for name, octets in (f.split("=", 1) for f in args.file)}
    mgr, keep = manager(lambda *_: None)
    channel = server_channel(mgr, args, 0, keep)
    config = o.OutstationStackConfig(o.DatabaseConfig(1))
    config.link.LocalAddr, config.link.RemoteAddr = args.local, args.remote
    handler, commands, application = Files(files), Commands(), Application()
    keep += [handler, commands, application]
    outstation = channel.AddOutstation("files", commands, application, config, handler)
    outstation.Enable()
    if not wait_listening(args.port):
        emit("error", message=f"not listening on {args.port}")
        return
    emit("ready", port=args.port)
    for line in sys.stdin:
        if line.strip() == "quit":
            break
    mgr.Shutdown()


if __name__ == "__main__":
    main()
