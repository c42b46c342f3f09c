"""An outstation's files: a directory served by IEEE 1815-2012's file procedures (group 70;
the requests and answers in :mod:`gridwire.dnp3.files`).

Names are paths under the served directory (``/`` or ``.`` is the directory itself, ``/logs``
a directory in it); a name that leaves it (``..``, a link out) is FILE_NOT_FOUND. The
directory is read-only unless ``writable``: then opening to write or append, and deleting,
answer PERMISSION_DENIED. With ``credentials`` (user, password) an open or delete needs the
key AUTHENTICATE_FILE gives for them.

A file opened to read is read whole at the open (at most :data:`MAX_SERVED` octets) and
served block by block, in order; a directory is served as its g70v7 descriptors. A file
opened to write is gathered in memory and written at the close (to a temporary name, then
renamed over the file); ABORT_FILE forgets it. At most :data:`MAX_OPEN` files are open at
once. Every request is answered with a status, never left unanswered: at once, or, for the
functions ``defer`` names, by a null response now and the answer as a file event later
(:mod:`gridwire.outstation.file_events`, D200).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from gridwire.dnp3 import files as wire
from gridwire.dnp3.app.fragments import Request
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.objects.records import (
    FileAuthentication,
    FileCommand,
    FileCommandStatus,
    FileDescriptor,
    FileTransport,
)
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.file_events import FileEvents
from gridwire.outstation.refusal import Refused

F = FunctionCode
FILE_FUNCTIONS = frozenset(
    {F.OPEN_FILE, F.CLOSE_FILE, F.DELETE_FILE, F.GET_FILE_INFO, F.AUTHENTICATE_FILE, F.ABORT_FILE}
)
MAX_OPEN = 4
MAX_SERVED = 64 * 1024 * 1024
_ENTRY_OVERHEAD = 2 + 4 + 8 + 4  # size prefix, object header, handle and block, response head


@dataclass(slots=True)
class _Open:
    path: Path
    mode: int
    block_size: int
    data: bytes = b""
    written: bytearray = field(default_factory=bytearray)
    next_block: int = 0


class FileServer:
    """The files of one outstation session (sans-IO but for the file system calls)."""

    def __init__(
        self,
        root: Path,
        *,
        writable: bool = False,
        credentials: tuple[str, str] | None = None,
        max_fragment: int = 2048,
        defer: frozenset[FunctionCode] = frozenset(),
        event_class: int = 1,
    ) -> None:
        self.root = root.resolve()
        self.defer = defer
        self.events = FileEvents(event_class)
        self.writable = writable
        self.credentials = credentials
        self.max_block = max(1, max_fragment - _ENTRY_OVERHEAD)
        self._open: dict[int, _Open] = {}
        self._keys: set[int] = set()
        self._next_handle = 1

    @staticmethod
    def serves(request: Request) -> bool:
        """Whether the request is the file server's: a file function, or a READ or WRITE of
        g70 objects."""
        if request.function in FILE_FUNCTIONS:
            return True
        return request.function in (F.READ, F.WRITE) and any(h.group == 70 for h in request.headers)

    def answer(self, request: Request) -> bytes:
        """The response's objects; Refused for a request that is not the procedure's, or
        that the file system cannot take (a name too long for it...). A deferred answer is
        kept as a file event, the response null."""
        try:
            objects = self._answer(request)
        except OSError as exc:
            raise Refused(IIN.PARAMETER_ERROR, f"file system: {exc.strerror or exc}") from None
        if request.function in self.defer:
            self.events.add(objects)
            return b""
        return objects

    def _answer(self, request: Request) -> bytes:
        if request.undecoded or len(request.objects) != 1 or len(request.headers) != 1:
            raise Refused(IIN.PARAMETER_ERROR, "a file request carries one g70 object")
        value = request.objects[0].value
        function = request.function
        if function is F.AUTHENTICATE_FILE and isinstance(value, FileAuthentication):
            return self._authenticate(value)
        if function is F.OPEN_FILE and isinstance(value, FileCommand):
            return self._open_file(value)
        if function is F.DELETE_FILE and isinstance(value, FileCommand):
            return self._delete(value)
        if function is F.GET_FILE_INFO and isinstance(value, FileDescriptor):
            return self._info(value)
        if function in (F.CLOSE_FILE, F.ABORT_FILE) and isinstance(value, FileCommandStatus):
            return self._close(value, commit=function is F.CLOSE_FILE)
        if function is F.READ and isinstance(value, FileTransport):
            return self._read(value)
        if function is F.WRITE and isinstance(value, FileTransport):
            return self._write(value)
        raise Refused(IIN.OBJECT_UNKNOWN, f"{function.name} cannot take that g70 object")

    # -- names and keys ------------------------------------------------------------------

    def _resolve(self, name: str) -> Path | None:
        """The path a name names inside the served directory, or None outside it."""
        relative = name.replace("\\", "/").lstrip("/")
        try:
            path = (self.root / relative).resolve()
        except (OSError, RuntimeError, ValueError):
            return None
        return path if path == self.root or self.root in path.parents else None

    def _authenticate(self, value: FileAuthentication) -> bytes:
        key = 0
        if self.credentials == (value.user_name, value.password):
            key = secrets.randbits(32) or 1
            self._keys.add(key)
        return wire.authentication("", "", key)

    def _denied(self, key: int) -> bool:
        """Whether a key is needed and this one is not good (it is good once)."""
        if self.credentials is None:
            return False
        if key in self._keys:
            self._keys.discard(key)
            return False
        return True

    # -- commands ------------------------------------------------------------------------

    def _status(self, value: FileCommand, status: str, handle: int = 0, size: int = 0) -> bytes:
        block = min(value.max_block_size or self.max_block, self.max_block)
        return wire.command_status(
            handle,
            status,
            file_size=size,
            max_block_size=block if status == "SUCCESS" else 0,
            request_id=value.request_id,
        )

    def _open_file(self, value: FileCommand) -> bytes:
        path = self._resolve(value.file_name)
        if self._denied(value.auth_key):
            return self._status(value, "PERMISSION_DENIED")
        if value.mode not in (wire.MODE_READ, wire.MODE_WRITE, wire.MODE_APPEND):
            return self._status(value, "INVALID_MODE")
        if len(self._open) >= MAX_OPEN:
            return self._status(value, "TOO_MANY_OPEN")
        if value.mode == wire.MODE_READ:
            return self._open_read(value, path)
        if not self.writable:
            return self._status(value, "PERMISSION_DENIED")
        if path is None or path == self.root or not path.parent.is_dir() or path.is_dir():
            return self._status(value, "FILE_NOT_FOUND")
        start = b""
        if value.mode == wire.MODE_APPEND and path.is_file():
            start = path.read_bytes()
        opened = _Open(path, value.mode, self._block(value), written=bytearray(start))
        return self._status(value, "SUCCESS", self._keep(opened), value.file_size)

    def _open_read(self, value: FileCommand, path: Path | None) -> bytes:
        if path is None or not path.exists():
            return self._status(value, "FILE_NOT_FOUND")
        try:
            data = self._directory(path) if path.is_dir() else _contents(path)
        except PermissionError:
            return self._status(value, "PERMISSION_DENIED")
        except OSError:
            return self._status(value, "FATAL")
        opened = _Open(path, value.mode, self._block(value), data=data)
        return self._status(value, "SUCCESS", self._keep(opened), len(data))

    def _block(self, value: FileCommand) -> int:
        return min(value.max_block_size or self.max_block, self.max_block)

    def _keep(self, opened: _Open) -> int:
        handle = self._next_handle
        self._next_handle = handle % 0xFFFFFFFF + 1
        self._open[handle] = opened
        return handle

    def _directory(self, path: Path) -> bytes:
        return b"".join(
            wire.descriptor_octets(describe(entry, entry.name))
            for entry in sorted(path.iterdir())
            if self._resolve(str(entry.relative_to(self.root))) is not None
        )

    def _delete(self, value: FileCommand) -> bytes:
        path = self._resolve(value.file_name)
        if self._denied(value.auth_key) or not self.writable:
            return self._status(value, "PERMISSION_DENIED")
        if path is None or not path.is_file():
            return self._status(value, "FILE_NOT_FOUND")
        if any(opened.path == path for opened in self._open.values()):
            return self._status(value, "FILE_LOCKED")
        try:
            path.unlink()
        except OSError:
            return self._status(value, "PERMISSION_DENIED")
        return self._status(value, "SUCCESS")

    def _info(self, value: FileDescriptor) -> bytes:
        path = self._resolve(value.file_name)
        if path is None or not path.exists():
            return wire.command_status(0, "FILE_NOT_FOUND", request_id=value.request_id)
        entry = describe(path, value.file_name)
        entry.request_id = value.request_id
        return wire.descriptor(
            entry.file_name,
            entry.file_type,
            entry.file_size,
            entry.created_ms,
            entry.permissions,
            entry.request_id,
        )

    def _close(self, value: FileCommandStatus, *, commit: bool) -> bytes:
        opened = self._open.pop(value.file_handle, None)
        if opened is None:
            return wire.command_status(
                value.file_handle, "INVALID_HANDLE", request_id=value.request_id
            )
        status = "SUCCESS"
        if commit and opened.mode != wire.MODE_READ:
            status = _commit(opened)
        return wire.command_status(value.file_handle, status, request_id=value.request_id)

    # -- blocks --------------------------------------------------------------------------

    def _read(self, value: FileTransport) -> bytes:
        handle, block = value.file_handle, value.block
        opened = self._open.get(handle)
        if opened is None or opened.mode != wire.MODE_READ:
            return wire.transport_status(handle, block, "INVALID_HANDLE")
        if block not in (opened.next_block, opened.next_block - 1):  # the last, again
            return wire.transport_status(handle, block, "BLOCK_SEQ")
        size = opened.block_size
        chunk = opened.data[block * size : (block + 1) * size]
        last = (block + 1) * size >= len(opened.data)
        opened.next_block = block + 1
        return wire.transport(handle, block, chunk, last=last)

    def _write(self, value: FileTransport) -> bytes:
        handle, block = value.file_handle, value.block
        opened = self._open.get(handle)
        if opened is None or opened.mode == wire.MODE_READ:
            return wire.transport_status(handle, block, "INVALID_HANDLE", last=value.last)
        if block != opened.next_block:
            return wire.transport_status(handle, block, "BLOCK_SEQ", last=value.last)
        if len(value.data) > opened.block_size:
            return wire.transport_status(handle, block, "WRITE_BLOCK_SIZE", last=value.last)
        if len(opened.written) + len(value.data) > MAX_SERVED:
            return wire.transport_status(handle, block, "BUFFER_OVERRUN", last=value.last)
        opened.written += value.data
        opened.next_block = block + 1
        return wire.transport_status(handle, block, "SUCCESS", last=value.last)


def _contents(path: Path) -> bytes:
    with path.open("rb") as handle:
        data = handle.read(MAX_SERVED + 1)
    if len(data) > MAX_SERVED:
        raise OSError(f"{path} is larger than {MAX_SERVED} octets")
    return data


def _commit(opened: _Open) -> str:
    temporary = opened.path.with_name(f".{opened.path.name}.{os.getpid()}.part")
    try:
        temporary.write_bytes(bytes(opened.written))
        os.replace(temporary, opened.path)
    except OSError:
        temporary.unlink(missing_ok=True)
        return "FATAL"
    return "SUCCESS"


def describe(path: Path, name: str) -> FileDescriptor:
    """The g70v7 of a file or directory (time: its modification time)."""
    info = path.stat()
    kind = wire.TYPE_DIRECTORY if path.is_dir() else wire.TYPE_FILE
    size = 0 if kind == wire.TYPE_DIRECTORY else info.st_size
    return FileDescriptor(
        name, kind, min(size, 0xFFFFFFFF), int(info.st_mtime * 1000), info.st_mode & 0o777, 0
    )


def served_files(config: OutstationConfig) -> FileServer | None:
    """The file server the settings ask for (None: no files served)."""
    if config.files is None:
        return None
    return FileServer(
        config.files,
        writable=config.files_writable,
        credentials=config.files_credentials,
        max_fragment=config.max_fragment,
        defer=frozenset(FunctionCode[name] for name in config.files_defer),
        event_class=config.files_event_class,
    )
